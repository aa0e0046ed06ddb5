import Joi from 'joi';
import { ORDER_STATUS } from '../../../../db/models';
import { ConflictError, InvalidError, NotFoundError, ValidationError } from '../../../../shared/errors';
import { can, permissionForStatus } from '../../../../shared/services/staff/roles';
import { decideClaim, listClaims } from '../../../../shared/services/fraud/claims';
import { listDisputes } from '../../../../shared/services/fraud/disputes';
import { listHeldOrders } from '../../../../shared/services/fraud/queue';
import { listRefusals } from '../../../../shared/services/fraud/refusals';
import {
  fraudSettingsOf,
  fraudSettingsSchema,
  fraudSettingsView,
  type FraudSettingsPatch,
  type FraudSettingsView,
} from '../../../../shared/services/fraud/settings';
import { updateStoreSettings } from '../../../../shared/services/stores/settings';
import { updateOrderStatus } from '../../../../shared/services/orders/transitions';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import {
  dashboardActor,
  formBody,
  guardedAnswers,
  idParam,
  langParam,
  notFound,
  postAnswers,
} from '../../forms';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import { FRAUD_STRINGS } from './strings';
import { fraudView, type FraudPageData } from './view';

/**
 * The Fraud page (docs/fraud.md): the review queue (approve and deliver, or refund, in one click), key
 * replacement claims (replace or decline with a note), disputes with their deadlines, the block lists and
 * limits, and the refused checkouts with the rule that matched. Every write goes through the services the
 * Merchant API uses (store settings, the order lifecycle, claims).
 */

async function pageData(ctx: AppContext): Promise<FraudPageData> {
  const { store } = dashboardOf(ctx);
  const { knex } = ctx.deps;
  const [settings, held, disputes, claims, refusals] = await Promise.all([
    fraudSettingsOf(knex, store.id),
    listHeldOrders(knex, store.id),
    listDisputes(knex, store.id),
    listClaims(knex, store.id, { limit: 50 }),
    listRefusals(knex, store.id, 50),
  ]);
  return { settings: fraudSettingsView(settings, store.currency), held, disputes, claims, refusals };
}

async function render(
  ctx: AppContext,
  message: string | null,
  status = 200,
  errors: Record<string, string> = {},
  form?: FraudSettingsView,
): Promise<void> {
  const { shell } = dashboardOf(ctx);
  sendPage(ctx, { status, html: fraudView(shell, await pageData(ctx), message, errors, form) });
}

const lines = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The settings form as the schema takes it: lists by line, empty numbers off (null). */
function patchOf(ctx: AppContext): { patch: Record<string, unknown>; form: FraudSettingsView } {
  const text = (name: string) => formField(ctx, name);
  const int = (name: string) => (text(name) === '' ? null : Number(text(name)));
  const amount = (name: string) => (text(name) === '' ? null : text(name));
  const form: FraudSettingsView = {
    blocked_emails: lines(text('blocked_emails')),
    blocked_ips: lines(text('blocked_ips')),
    max_orders_per_buyer_per_day: int('max_orders_per_buyer_per_day'),
    max_units_per_product_per_day: int('max_units_per_product_per_day'),
    new_buyer_daily_limit: amount('new_buyer_daily_limit'),
    review_above: amount('review_above'),
    review_buyers_per_ip_per_hour: int('review_buyers_per_ip_per_hour'),
  };
  return { patch: { ...form }, form };
}

const FIELDS = [
  'blocked_emails',
  'blocked_ips',
  'max_orders_per_buyer_per_day',
  'max_units_per_product_per_day',
  'new_buyer_daily_limit',
  'review_above',
  'review_buyers_per_ip_per_hour',
] as const;

const textField = Joi.string().allow('').max(200_000);

export const dashboardFraudRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/fraud',
    interface: 'platform',
    operationId: 'dashboardFraud',
    summary: 'Merchant dashboard: fraud controls',
    description:
      'The review queue, key replacement claims, disputes, the block lists and limits, and the refused ' +
      'checkouts with the rule that matched (docs/fraud.md).',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ done?: string; id?: number; lang?: string }, true>({
        done: Joi.string().valid('saved', 'approved', 'refunded', 'claim-approved', 'claim-declined'),
        id: Joi.number().integer().min(1).max(2_147_483_647),
        lang: langParam,
      }),
    },
    responses: { 200: htmlResponse('The Fraud page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const f = FRAUD_STRINGS[dashboardOf(ctx).shell.locale];
      const messages: Record<string, string> = {
        saved: f.saved,
        approved: f.approved(query.id ?? 0),
        refunded: f.refunded(query.id ?? 0),
        'claim-approved': f.claimApproved,
        'claim-declined': f.claimDeclined,
      };
      await render(ctx, query.done ? (messages[query.done] ?? null) : null);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/fraud/settings',
    interface: 'platform',
    operationId: 'dashboardFraudSettingsSave',
    summary: 'Merchant dashboard: save the fraud settings',
    description:
      'Form fields `blocked_emails` and `blocked_ips` (one entry a line), `max_orders_per_buyer_per_day`, ' +
      '`max_units_per_product_per_day`, `new_buyer_daily_limit`, `review_above`, ' +
      '`review_buyers_per_ip_per_hour` (empty: off). 303 back, or the page with each bad field named (422).',
    guards: signedIn('settings.edit'),
    request: formBody(Object.fromEntries(FIELDS.map((k) => [k, textField]))),
    responses: {
      303: redirectResponse('Saved: back to the page.'),
      422: htmlResponse('The page, naming each bad field.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const { patch, form } = patchOf(ctx);
      const { error, value } = fraudSettingsSchema.validate(patch, { abortEarly: false, convert: true });
      const errors: Record<string, string> = {};
      for (const d of error?.details ?? []) errors[String(d.path[0])] = d.message.replace(/^"[^"]*"\s*/, '');
      if (Object.keys(errors).length > 0) return render(ctx, null, 422, errors, form);
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          settings: value as FraudSettingsPatch,
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const [k, m] of Object.entries(err.errors)) errors[k.replace(/^settings\./, '')] = m[0] ?? '';
        return render(ctx, null, 422, errors, form);
      }
      sendPage(ctx, { status: 303, location: '/merchant/fraud?done=saved' });
    },
  }),
  ...(['approve', 'refund'] as const).map((action) =>
    defineRoute({
      method: 'post',
      path: `/merchant/fraud/orders/{orderId}/${action}`,
      interface: 'platform',
      operationId: action === 'approve' ? 'dashboardFraudApprove' : 'dashboardFraudRefund',
      summary:
        action === 'approve'
          ? 'Merchant dashboard: approve a held order (deliver)'
          : 'Merchant dashboard: refund a held order',
      description:
        action === 'approve'
          ? 'One click: Under review to Completed through the order lifecycle (the goods go out), as PUT ' +
            '/shawarma/orders/{id} with 4. 303 back to the page.'
          : 'One click: Under review to Refunded through the order lifecycle (the payment is refunded and ' +
            'nothing is delivered), as PUT /shawarma/orders/{id} with 6. 303 back to the page.',
      guards: signedIn('orders.view'),
      request: { params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>, ...formBody({}) },
      responses: {
        303: redirectResponse('Done: back to the Fraud page.'),
        404: htmlResponse('No such order in this store.'),
        409: htmlResponse('The order is no longer waiting for review.'),
        ...postAnswers,
      },
      handler: async (ctx, { params }) => {
        const { store, shell, membership } = dashboardOf(ctx);
        const target = action === 'approve' ? ORDER_STATUS.COMPLETED : ORDER_STATUS.REFUNDED;
        if (
          !can(membership.role, permissionForStatus(target, ORDER_STATUS.UNDER_REVIEW), membership.grants)
        ) {
          return sendPage(ctx, messagePage(shell, 403, shell.t.forbiddenTitle, shell.t.forbidden));
        }
        try {
          const change = await updateOrderStatus(ctx.deps, store.id, params.orderId, target, {
            merchantTokenId: null,
          });
          if (!change.changed && change.status !== target) return render(ctx, null, 409);
        } catch (err) {
          if (err instanceof NotFoundError) return notFound(ctx);
          if (err instanceof ValidationError) return render(ctx, null, 409);
          throw err;
        }
        sendPage(ctx, {
          status: 303,
          location: `/merchant/fraud?done=${action === 'approve' ? 'approved' : 'refunded'}&id=${params.orderId}`,
        });
      },
    }),
  ),
  ...(['approve', 'decline'] as const).map((action) =>
    defineRoute({
      method: 'post',
      path: `/merchant/fraud/claims/{claimId}/${action}`,
      interface: 'platform',
      operationId: action === 'approve' ? 'dashboardClaimApprove' : 'dashboardClaimDecline',
      summary:
        action === 'approve'
          ? 'Merchant dashboard: replace a claimed key'
          : 'Merchant dashboard: decline a key claim',
      description:
        action === 'approve'
          ? 'A replacement key from stock, once per key; the buyer gets it by message and e-mail. 303 back.'
          : 'Form field `note` (required): sent to the buyer by message and e-mail. 303 back.',
      guards: signedIn('orders.view'),
      request: {
        params: idParam('claimId') as Joi.ObjectSchema<{ claimId: number }>,
        ...formBody({ note: Joi.string().allow('').max(1000) }),
      },
      responses: {
        303: redirectResponse('Done: back to the Fraud page.'),
        404: htmlResponse('No such claim in this store.'),
        409: htmlResponse('Already answered, no key left in stock, or (decline) no note.'),
        ...postAnswers,
      },
      handler: async (ctx, { params }) => {
        const { store } = dashboardOf(ctx);
        const note = formField(ctx, 'note');
        if (action === 'decline' && note === '') return render(ctx, null, 409);
        try {
          await decideClaim(ctx.deps, store.id, params.claimId, { approve: action === 'approve', note });
        } catch (err) {
          if (err instanceof NotFoundError) return notFound(ctx);
          if (err instanceof ConflictError || err instanceof InvalidError)
            return render(ctx, err.message, 409);
          throw err;
        }
        sendPage(ctx, {
          status: 303,
          location: `/merchant/fraud?done=${action === 'approve' ? 'claim-approved' : 'claim-declined'}`,
        });
      },
    }),
  ),
];
