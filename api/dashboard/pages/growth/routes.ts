import Joi from 'joi';
import { localInputToUtc } from '../../../../shared/i18n/local-time';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import { reminderFigures } from '../../../../shared/services/growth/abandoned';
import { storeSettings, updateStoreSettings } from '../../../../shared/services/stores/settings';
import { createCreator, listCreators } from '../../../../shared/services/growth/creators';
import {
  createSale,
  deleteSale,
  listSales,
  saleChoices,
} from '../../../../shared/services/growth/sales-admin';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { dashboardActor, fieldErrors, formBody, guardedAnswers } from '../../forms';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import {
  type CreatorForm,
  emptyCreator,
  emptySale,
  growthView,
  type GrowthPage,
  type RecoveryForm,
  type SaleForm,
  savedNotice,
} from './view';

/**
 * Growth (docs/growth.md): the recovery figures, timed sales (schedule, delete) and creators (add), through
 * the services the Merchant API uses, so a sale or creator made here follows the same rules.
 */

const lang = Joi.object({ lang: Joi.string().valid('ar', 'en'), saved: Joi.string().max(2) });
const saleParams = Joi.object({
  saleId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ saleId: number }>;
const ids = Joi.alternatives().try(Joi.string().max(12), Joi.array().items(Joi.string().max(12)).max(500));
const saleFields = {
  name: Joi.string().allow('').max(300),
  percent: Joi.string().allow('').max(20),
  amount: Joi.string().allow('').max(40),
  products: ids,
  categories: ids,
  starts_at: Joi.string().allow('').max(40),
  ends_at: Joi.string().allow('').max(40),
  stackable: Joi.string().allow('').max(5),
};
const creatorFields = {
  name: Joi.string().allow('').max(300),
  code: Joi.string().allow('').max(200),
  commission_percent: Joi.string().allow('').max(20),
  discount_percent: Joi.string().allow('').max(20),
};

function idsOf(ctx: AppContext, name: string): number[] {
  const body = ctx.request.body as Record<string, unknown> | undefined;
  const raw = body?.[name];
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === '' ? [] : [raw];
  return list.map((v) => Number(v)).filter((n) => Number.isSafeInteger(n) && n > 0);
}

function saleFormOf(ctx: AppContext): SaleForm {
  return {
    name: formField(ctx, 'name').trim(),
    percent: formField(ctx, 'percent').trim(),
    amount: formField(ctx, 'amount').trim(),
    products: idsOf(ctx, 'products'),
    categories: idsOf(ctx, 'categories'),
    starts_at: formField(ctx, 'starts_at').trim(),
    ends_at: formField(ctx, 'ends_at').trim(),
    stackable: formField(ctx, 'stackable') === '1',
  };
}

/** A `datetime-local` value is the store's wall time (its time zone, as the form says). */
const instant = (value: string, timeZone: string): Date =>
  new Date(localInputToUtc(value, timeZone) ?? Number.NaN);

async function render(
  ctx: AppContext,
  status: number,
  parts: Partial<Pick<GrowthPage, 'sale' | 'creator' | 'recovery' | 'notice' | 'pageUrl'>> = {},
) {
  const { store, shell } = dashboardOf(ctx);
  const [settings, figures, sales, creators, choices] = await Promise.all([
    storeSettings(ctx.deps, store.id),
    reminderFigures(ctx.deps.knex, store.id),
    listSales(ctx.deps.knex, store.id),
    listCreators(ctx.deps.knex, store.id),
    saleChoices(ctx.deps.knex, store.id),
  ]);
  sendPage(ctx, {
    status,
    html: growthView(shell, {
      figures,
      sales,
      creators,
      ...choices,
      sale: parts.sale ?? { values: emptySale, errors: {} },
      creator: parts.creator ?? { values: emptyCreator, errors: {} },
      recovery: parts.recovery ?? {
        values: {
          minutes: String(settings.settings.abandoned_checkout_minutes),
          coupon: settings.settings.abandoned_checkout_coupon ?? '',
        },
        errors: {},
      },
      notice: parts.notice ?? null,
      pageUrl: parts.pageUrl ?? null,
    }),
  });
}

export const dashboardGrowthRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/growth',
    interface: 'platform',
    operationId: 'dashboardGrowth',
    summary: 'Merchant dashboard: sales and creators',
    description:
      'Abandoned-checkout figures, the timed sales (with the form to schedule one) and the creators.',
    guards: signedIn('products.edit'),
    request: { query: lang },
    responses: { 200: htmlResponse('The page.'), ...guardedAnswers },
    handler: (ctx, { query }) =>
      render(ctx, 200, {
        notice:
          (query as { saved?: string }).saved === '1' ? savedNotice(dashboardOf(ctx).shell.locale) : null,
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/growth/sales',
    interface: 'platform',
    operationId: 'dashboardSaleCreate',
    summary: 'Merchant dashboard: schedule a timed sale',
    description:
      'The sale form (times in the store’s time zone); the Merchant API’s rules. 303 to the page, or the page again (422).',
    guards: signedIn('products.edit'),
    request: formBody(saleFields),
    responses: {
      303: redirectResponse('Scheduled.'),
      422: htmlResponse('The page again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = saleFormOf(ctx);
      const errors: Record<string, string[]> = {};
      if (!values.name) errors.name = ['is required'];
      const starts = instant(values.starts_at, shell.timeZone);
      const ends = instant(values.ends_at, shell.timeZone);
      if (Number.isNaN(starts.getTime())) errors.starts_at = ['must be a date and time'];
      if (Number.isNaN(ends.getTime())) errors.ends_at = ['must be a date and time'];
      const again = (e: Record<string, string[]>) =>
        render(ctx, 422, { sale: { values, errors: fieldErrors(shell.locale, e) } });
      if (Object.keys(errors).length > 0) return again(errors);
      try {
        await createSale(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          name: values.name,
          percent: values.percent === '' ? null : values.percent,
          amount: values.amount === '' ? null : values.amount,
          products: values.products,
          categories: values.categories,
          starts_at: starts,
          ends_at: ends,
          stackable: values.stackable,
        });
      } catch (err) {
        if (err instanceof ValidationError) return again(err.errors);
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/growth?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/growth/sales/{saleId}/delete',
    interface: 'platform',
    operationId: 'dashboardSaleDelete',
    summary: 'Merchant dashboard: delete a timed sale',
    description: 'Ends it at once. 303 to the page.',
    guards: signedIn('products.edit'),
    request: { params: saleParams, ...formBody({}) },
    responses: { 303: redirectResponse('Deleted.'), 404: htmlResponse('No such sale.'), ...guardedAnswers },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      try {
        await deleteSale(ctx.deps, dashboardActor(store.id, s.user), store.id, params.saleId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/growth?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/growth/settings',
    interface: 'platform',
    operationId: 'dashboardGrowthSettings',
    summary: 'Merchant dashboard: abandoned-checkout reminder settings',
    description:
      'Form fields `abandoned_checkout_minutes` (0 turns reminders off) and `abandoned_checkout_coupon` (a ' +
      'coupon code of the store, empty for none): the store settings of PATCH /shawarma/store. 303 to the page.',
    guards: signedIn('settings.edit'),
    request: formBody({
      abandoned_checkout_minutes: Joi.string().allow('').max(10),
      abandoned_checkout_coupon: Joi.string().allow('').max(200),
    }),
    responses: {
      303: redirectResponse('Saved.'),
      422: htmlResponse('The page again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values: RecoveryForm = {
        minutes: formField(ctx, 'abandoned_checkout_minutes').trim(),
        coupon: formField(ctx, 'abandoned_checkout_coupon').trim(),
      };
      const again = (e: Record<string, string[]>) =>
        render(ctx, 422, { recovery: { values, errors: fieldErrors(shell.locale, e) } });
      const minutes = Number(values.minutes);
      if (!/^\d{1,5}$/.test(values.minutes) || minutes > 10_080)
        return again({ abandoned_checkout_minutes: ['must be whole minutes from 0 to 10080'] });
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          settings: {
            abandoned_checkout_minutes: minutes,
            abandoned_checkout_coupon: values.coupon === '' ? null : values.coupon,
          },
        });
      } catch (err) {
        if (err instanceof ValidationError) {
          return again(
            Object.fromEntries(Object.entries(err.errors).map(([k, m]) => [k.replace(/^settings\./, ''), m])),
          );
        }
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/growth?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/growth/creators',
    interface: 'platform',
    operationId: 'dashboardCreatorCreate',
    summary: 'Merchant dashboard: add a creator',
    description:
      'The creator form; the Merchant API’s rules. The page again (200) with the creator’s private page ' +
      'address shown once, or with each bad field named (422).',
    guards: signedIn('products.edit'),
    request: formBody(creatorFields),
    responses: {
      200: htmlResponse('Added: the page with the private page address.'),
      422: htmlResponse('The page again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values: CreatorForm = {
        name: formField(ctx, 'name').trim(),
        code: formField(ctx, 'code').trim(),
        commission_percent: formField(ctx, 'commission_percent').trim(),
        discount_percent: formField(ctx, 'discount_percent').trim(),
      };
      const again = (e: Record<string, string[]>) =>
        render(ctx, 422, { creator: { values, errors: fieldErrors(shell.locale, e) } });
      const errors: Record<string, string[]> = {};
      if (!values.name) errors.name = ['is required'];
      if (!/^[A-Za-z0-9_-]{2,100}$/.test(values.code))
        errors.code = ['must be 2 to 100 letters, digits, - or _'];
      if (!values.commission_percent) errors.commission_percent = ['is required'];
      if (Object.keys(errors).length > 0) return again(errors);
      try {
        const created = await createCreator(
          ctx.deps.knex,
          dashboardActor(store.id, s.user),
          store.id,
          {
            name: values.name,
            code: values.code,
            commission_percent: values.commission_percent,
            discount_percent: values.discount_percent === '' ? null : values.discount_percent,
          },
          ctx.deps.config.publicBaseUrl,
        );
        await render(ctx, 200, { pageUrl: created.page_url, notice: savedNotice(shell.locale) });
      } catch (err) {
        if (err instanceof ValidationError) return again(err.errors);
        throw err;
      }
    },
  }),
];
