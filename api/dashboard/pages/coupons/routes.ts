import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import { couponSchema, type CouponInput } from '../../../../shared/services/catalogue/schema';
import {
  couponDetail,
  createCoupon,
  listCoupons,
  updateCoupon,
  type CouponView,
} from '../../../../shared/services/coupons/manage';
import { localInputToUtc, utcToLocalInput } from '../../../../shared/i18n/local-time';
import { dashboardActor, fieldErrors, formBody, guardedAnswers } from '../../forms';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import { type CouponForm, emptyCoupon, couponsView, couponFormView } from './view';

/**
 * Coupons: list, create, edit, disable. The form is read into the Merchant API's coupon input and checked
 * by the same schema (shared/services/catalogue/schema.ts) and the same write service
 * (shared/services/coupons/manage.ts), so a coupon made here follows every rule of one made by API.
 */

const couponFields = {
  code: Joi.string().allow('').max(200),
  type: Joi.string().allow('').max(20),
  amount: Joi.string().allow('').max(40),
  max_uses: Joi.string().allow('').max(20),
  min_order: Joi.string().allow('').max(40),
  expires_at: Joi.string().allow('').max(20),
  active: Joi.string().allow('').max(5),
};
const couponParams = Joi.object({
  couponId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ couponId: number }>;
const lang = Joi.object({ lang: Joi.string().valid('ar', 'en'), saved: Joi.string().max(2) });

function formOf(ctx: AppContext): CouponForm {
  return {
    code: formField(ctx, 'code').trim(),
    type: formField(ctx, 'type') || 'percentage',
    amount: formField(ctx, 'amount').trim(),
    max_uses: formField(ctx, 'max_uses').trim(),
    min_order: formField(ctx, 'min_order').trim(),
    expires_at: formField(ctx, 'expires_at').trim(),
    active: formField(ctx, 'active') === '1',
  };
}

/** The coupon as the form shows it: its end in the store's wall time (`datetime-local`). */
function formFromView(c: CouponView, timeZone: string): CouponForm {
  return {
    code: c.code,
    type: c.type,
    amount: c.amount,
    max_uses: c.max_uses === null ? '' : String(c.max_uses),
    min_order: c.min_order ?? '',
    expires_at: c.expires_at ? utcToLocalInput(c.expires_at, timeZone) : '',
    active: c.active,
  };
}

/** The form as the Merchant API's coupon input; errors by field, in the page's language. */
function readForm(
  ctx: AppContext,
  f: CouponForm,
  mode: 'create' | 'patch',
): { ok: true; input: CouponInput } | { ok: false; errors: Record<string, string> } {
  const { shell } = dashboardOf(ctx);
  const raw = {
    code: f.code,
    type: f.type,
    amount: f.amount,
    active: f.active,
    max_uses: f.max_uses === '' ? null : /^\d{1,10}$/.test(f.max_uses) ? Number(f.max_uses) : f.max_uses,
    min_order: f.min_order === '' ? null : f.min_order,
    // The form's time is the store's wall time (its time zone); stored as the UTC instant.
    expires_at: f.expires_at === '' ? null : (localInputToUtc(f.expires_at, shell.timeZone) ?? f.expires_at),
  };
  const { value, error } = couponSchema(mode).validate(raw, { abortEarly: false, convert: true });
  if (!error) return { ok: true, input: value as CouponInput };
  return {
    ok: false,
    errors: fieldErrors(
      shell.locale,
      Object.fromEntries(error.details.map((d) => [String(d.path[0]), [d.message]])),
    ),
  };
}

async function page(ctx: AppContext, notice: string | null) {
  const { store, shell } = dashboardOf(ctx);
  const list = await listCoupons(ctx.deps.knex, store.id, {}, { page: 1, per_page: 100 });
  sendPage(ctx, { status: 200, html: couponsView(shell, list.items, notice) });
}

export const dashboardCouponRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/coupons',
    interface: 'platform',
    operationId: 'dashboardCoupons',
    summary: 'Merchant dashboard: coupons',
    description: 'The store’s coupons, newest first (100), each with edit and disable or enable.',
    guards: signedIn('products.edit'),
    request: { query: lang },
    responses: { 200: htmlResponse('The coupons.'), ...guardedAnswers },
    handler: (ctx, { query }) =>
      page(ctx, (query as { saved?: string }).saved === '1' ? dashboardOf(ctx).shell.t.couponSaved : null),
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/coupons/new',
    interface: 'platform',
    operationId: 'dashboardCouponNew',
    summary: 'Merchant dashboard: new coupon form',
    guards: signedIn('products.edit'),
    request: { query: lang },
    responses: { 200: htmlResponse('The empty form.'), ...guardedAnswers },
    handler: (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      sendPage(ctx, {
        status: 200,
        html: couponFormView(shell, { id: null, values: emptyCoupon, errors: {}, currency: store.currency }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/coupons',
    interface: 'platform',
    operationId: 'dashboardCouponCreate',
    summary: 'Merchant dashboard: create a coupon',
    description: 'The coupon form; the Merchant API’s rules. 303 to the list, or the form again (422).',
    guards: signedIn('products.edit'),
    request: formBody(couponFields),
    responses: {
      303: redirectResponse('Created.'),
      422: htmlResponse('The form again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = formOf(ctx);
      const again = (errors: Record<string, string>) =>
        sendPage(ctx, {
          status: 422,
          html: couponFormView(shell, { id: null, values, errors, currency: store.currency }),
        });
      const read = readForm(ctx, values, 'create');
      if (!read.ok) return again(read.errors);
      try {
        await createCoupon(ctx.deps.knex, dashboardActor(store.id, s.user), store.id, read.input);
      } catch (err) {
        if (err instanceof ValidationError) return again(fieldErrors(shell.locale, err.errors));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/coupons?saved=1' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/coupons/{couponId}',
    interface: 'platform',
    operationId: 'dashboardCoupon',
    summary: 'Merchant dashboard: edit a coupon',
    guards: signedIn('products.edit'),
    request: { params: couponParams, query: lang },
    responses: { 200: htmlResponse('The form.'), 404: htmlResponse('No such coupon.'), ...guardedAnswers },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      let coupon: CouponView;
      try {
        coupon = await couponDetail(ctx.deps.knex, store.id, params.couponId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, {
        status: 200,
        html: couponFormView(shell, {
          id: coupon.id,
          values: formFromView(coupon, shell.timeZone),
          errors: {},
          currency: store.currency,
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/coupons/{couponId}',
    interface: 'platform',
    operationId: 'dashboardCouponUpdate',
    summary: 'Merchant dashboard: save a coupon',
    description: 'The coupon form (its products and payment restrictions are kept). 303 to the list.',
    guards: signedIn('products.edit'),
    request: { params: couponParams, ...formBody(couponFields) },
    responses: {
      303: redirectResponse('Saved.'),
      404: htmlResponse('No such coupon.'),
      422: htmlResponse('The form again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = formOf(ctx);
      const again = (errors: Record<string, string>) =>
        sendPage(ctx, {
          status: 422,
          html: couponFormView(shell, { id: params.couponId, values, errors, currency: store.currency }),
        });
      const read = readForm(ctx, values, 'patch');
      if (!read.ok) return again(read.errors);
      try {
        await updateCoupon(
          ctx.deps.knex,
          dashboardActor(store.id, s.user),
          store.id,
          params.couponId,
          read.input,
        );
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        if (err instanceof ValidationError) return again(fieldErrors(shell.locale, err.errors));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/coupons?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/coupons/{couponId}/active',
    interface: 'platform',
    operationId: 'dashboardCouponActive',
    summary: 'Merchant dashboard: disable or enable a coupon',
    description: 'Form field `active` (`0` disables, `1` enables). 303 to the list.',
    guards: signedIn('products.edit'),
    request: { params: couponParams, ...formBody({ active: Joi.string().valid('0', '1').required() }) },
    responses: { 303: redirectResponse('Done.'), 404: htmlResponse('No such coupon.'), ...guardedAnswers },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      try {
        await updateCoupon(ctx.deps.knex, dashboardActor(store.id, s.user), store.id, params.couponId, {
          active: formField(ctx, 'active') === '1',
        });
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/coupons?saved=1' });
    },
  }),
];
