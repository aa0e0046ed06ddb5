import { emailsForOrder } from '../../../../shared/services/emails';
import { orderFraud } from '../../../../shared/services/fraud/order-view';
import { orderFraudSection } from '../fraud/view';
import Joi from 'joi';
import { ORDER_STATUS, OrderStatus } from '../../../../db/models';
import { ConflictError, NotFoundError, ValidationError } from '../../../../shared/errors';
import { paymentAttempts, productChoices } from '../../../../shared/services/statistics/home';
import { can, permissionForStatus } from '../../../../shared/services/staff/roles';
import { listOrders, orderDetail } from '../../../../shared/services/orders/read';
import { orderNumberOf, orderStatusOf } from '../../../../shared/services/orders/status-of';
import { TRANSITIONS, updateOrderStatus } from '../../../../shared/services/orders/transitions';
import { parseMoney } from '../../../../shared/money';
import { orderRefunds } from '../../../../shared/services/refunds/order-refunds';
import { documentLink } from '../../../../shared/services/invoices/read';
import { requestRefund } from '../../../../shared/services/orders/refund';
import { formatAmount } from '../../../pay/i18n';
import { listAudit } from '../../../../shared/services/audit';
import { subscriptionAuditOfOrder } from '../../../../shared/services/account/subscriptions';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import {
  ordersView,
  type OrderDetailView,
  orderView,
  type OrderExtras,
  confirmRefundView,
  confirmStatusView,
} from './view';
import { dashboardActor, formBody, guardedAnswers, postAnswers, idParam, notFound } from '../../forms';
import { isFulfillable } from '../../../../shared/services/fulfilment/rules';
import {
  resendDelivery,
  ResendRefusedError,
  type ResendChannel,
} from '../../../../shared/services/fulfilment/resend';
import { resendStrings } from './resend';

/** The orders pages: the list, an order, its status moves and its refunds, through the Merchant API's services. */

async function renderOrder(
  ctx: AppContext,
  orderId: number,
  notice: string | null,
  status = 200,
  refundForm: OrderExtras['refundForm'] = null,
  /** The refund just made (the form's 303 names it): its amount is the page's notice. */
  refundedId: number | null = null,
) {
  const { store, shell } = dashboardOf(ctx);
  let detail: OrderDetailView;
  try {
    detail = await orderDetail(ctx.deps.knex, store.id, orderId, ctx.deps.config.publicBaseUrl);
  } catch (err) {
    if (err instanceof NotFoundError) return notFound(ctx);
    throw err;
  }
  const { knex, config } = ctx.deps;
  const [attempts, refunds, document, audit, emails, fraud, subscriptionAudit] = await Promise.all([
    paymentAttempts(knex, store.id, orderId),
    orderRefunds(knex, store.id, orderId),
    documentLink(knex, { appSecret: ctx.deps.appSecret, publicBaseUrl: config.publicBaseUrl }, orderId),
    listAudit(knex, store.id, { resource_type: 'order', resource_id: orderId }, { page: 1, per_page: 50 }),
    emailsForOrder(knex, orderId),
    orderFraud(knex, store.id, orderId),
    // The buyer's own changes to the subscriptions this order started (docs/account.md).
    subscriptionAuditOfOrder(knex, store.id, orderId),
  ]);
  const made = refundedId === null ? undefined : refunds?.refunds.find((r) => r.id === refundedId);
  if (made && refunds) notice = shell.t.refundDone(formatAmount(made.amountMinor, refunds.currency, shell));
  sendPage(ctx, {
    status,
    html: orderView(shell, detail, TRANSITIONS[detail.status as OrderStatus] ?? [], notice, attempts, {
      refunds,
      document,
      refundForm,
      audit: [...audit.items, ...subscriptionAudit].sort((a, b) => b.created_at.localeCompare(a.created_at)),
      emails,
      resendable: isFulfillable(detail.status as OrderStatus),
      fraud: orderFraudSection(shell, fraud),
    }),
  });
}

export const dashboardOrderRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/orders',
    interface: 'platform',
    operationId: 'dashboardOrders',
    summary: 'Merchant dashboard: orders',
    description:
      'Newest first, 20 a page; filters `status` (1 to 6), `phone` (the customer’s, digits), `product` (id), ' +
      '`from` and `to` (UTC days, YYYY-MM-DD, both included).',
    guards: signedIn('orders.view'),
    request: {
      query: Joi.object<
        {
          page: number;
          status?: number;
          phone?: string;
          product?: number;
          from?: string;
          to?: string;
          lang?: string;
        },
        true
      >({
        page: Joi.number().integer().min(1).max(100_000).default(1),
        status: Joi.number().integer().min(1).max(6).empty(''),
        phone: Joi.string()
          .pattern(/^\d{3,20}$/)
          .empty(''),
        product: Joi.number().integer().min(1).max(2_147_483_647).empty(''),
        from: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/)
          .empty('')
          .description('First day (UTC), YYYY-MM-DD.'),
        to: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/)
          .empty('')
          .description('Last day (UTC), YYYY-MM-DD, included.'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: { 200: htmlResponse('The orders list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const day = (text: string | undefined, end: boolean): Date | undefined => {
        if (!text) return undefined;
        const d = new Date(`${text}T00:00:00Z`);
        if (Number.isNaN(d.getTime())) return undefined;
        return end ? new Date(d.getTime() + 86_400_000 - 1) : d;
      };
      const [list, products] = await Promise.all([
        listOrders(
          ctx.deps.knex,
          store.id,
          {
            status: query.status ? [query.status] : undefined,
            phone: query.phone,
            product_id: query.product,
            from: day(query.from, false),
            to: day(query.to, true),
          },
          { page: query.page, per_page: 20 },
        ),
        productChoices(ctx.deps.knex, store.id),
      ]);
      sendPage(ctx, {
        status: 200,
        html: ordersView(
          shell,
          list,
          {
            status: query.status ? String(query.status) : '',
            phone: query.phone ?? '',
            from: query.from ?? '',
            to: query.to ?? '',
            product: query.product ? String(query.product) : '',
          },
          products,
        ),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/orders/{orderId}',
    interface: 'platform',
    operationId: 'dashboardOrder',
    summary: 'Merchant dashboard: one order',
    description:
      'Items with custom-field answers, delivered keys (masked), licenses, payment, history, and the status ' +
      'moves the transition table allows for this order and the person’s role.',
    guards: signedIn('orders.view'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      query: Joi.object<{ lang?: string; refunded?: number }, true>({
        lang: Joi.string().valid('ar', 'en'),
        refunded: Joi.number().integer().min(1).max(2_147_483_647),
      }),
    },
    responses: {
      200: htmlResponse('The order; with `refunded` (a refund of this order) its amount as the notice.'),
      404: htmlResponse('No such order in this store.'),
      ...guardedAnswers,
    },
    handler: (ctx, { params, query }) =>
      renderOrder(ctx, params.orderId, null, 200, null, query.refunded ?? null),
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/orders/{orderId}/status',
    interface: 'platform',
    operationId: 'dashboardOrderStatus',
    summary: 'Merchant dashboard: change an order’s status',
    description:
      'Form fields `status` (2 to 6) and `_csrf`. Cancel (5) and refund (6) first answer a confirmation page; ' +
      'the confirmed form adds `confirm=1`. Same rules and effects as `PUT /shawarma/orders/{id}`. Support ' +
      'may not cancel or refund, nor confirm a payment (Awaiting payment or Under review to In progress or ' +
      'Completed) unless an owner granted it on the staff page (403).',
    guards: signedIn('orders.view'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      ...formBody({ status: Joi.string().max(2), confirm: Joi.string().max(2) }),
    },
    responses: {
      200: htmlResponse('The confirmation page (cancel, refund) or the order with the new status.'),
      404: htmlResponse('No such order in this store.'),
      422: htmlResponse('A move the transition table does not allow (the order page, saying so).'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, membership } = dashboardOf(ctx);
      const target = Number(formField(ctx, 'status'));
      if (![2, 3, 4, 5, 6].includes(target)) return renderOrder(ctx, params.orderId, null, 422);
      // The move's permission depends on where the order is now: confirming a payment (Awaiting payment or
      // Under review to In progress or Completed) is granted apart (shared/services/staff/roles.ts).
      const current = await orderStatusOf(ctx.deps.knex, store.id, params.orderId);
      if (current === null) return notFound(ctx);
      if (!can(membership.role, permissionForStatus(target, current), membership.grants)) {
        return sendPage(ctx, messagePage(shell, 403, shell.t.forbiddenTitle, shell.t.forbidden));
      }
      if (
        (target === ORDER_STATUS.CANCELLED || target === ORDER_STATUS.REFUNDED) &&
        formField(ctx, 'confirm') !== '1'
      ) {
        const orderNumber = (await orderNumberOf(ctx.deps.knex, store.id, params.orderId)) ?? params.orderId;
        return sendPage(ctx, {
          status: 200,
          html: confirmStatusView(shell, params.orderId, orderNumber, target),
        });
      }
      try {
        const result = await updateOrderStatus(ctx.deps, store.id, params.orderId, target as OrderStatus, {
          merchantTokenId: null,
        });
        return renderOrder(ctx, params.orderId, shell.t.statusChanged(shell.t.statusName[result.status]));
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof ValidationError) return renderOrder(ctx, params.orderId, null, 422);
        throw err;
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/orders/{orderId}/refund',
    interface: 'platform',
    operationId: 'dashboardOrderRefund',
    summary: 'Merchant dashboard: refund an order in full or in part',
    description:
      'Form fields `amount` (a decimal in the order’s currency, at most what is left to refund: 3 decimals ' +
      'for KWD, BHD, OMR), `reason` (optional) and `_csrf`. First answers a confirmation page; the ' +
      'confirmed form adds `confirm=1` and the refund is made as `POST /shawarma/orders/{id}/refunds` makes ' +
      'it (all that is left: the order becomes Refunded; less: it keeps its status), then 303 to the ' +
      'order’s page, which names the refund in its notice. Owners and managers.',
    guards: signedIn('orders.refund'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      ...formBody({
        amount: Joi.string().allow('').max(40),
        reason: Joi.string().allow('').max(500),
        confirm: Joi.string().max(2),
      }),
    },
    responses: {
      200: htmlResponse('The confirmation page.'),
      303: redirectResponse('Refunded: to the order’s page, naming the refund (`?refunded=`).'),
      404: htmlResponse('No such order in this store.'),
      422: htmlResponse('The order page, naming a bad amount.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      const money = await orderRefunds(ctx.deps.knex, store.id, params.orderId);
      if (!money) return notFound(ctx);
      const amountText = formField(ctx, 'amount').trim();
      const reason = formField(ctx, 'reason').trim().slice(0, 500);
      const amountMinor = parseMoney(amountText, money.currency);
      const left = formatAmount(money.refundableMinor, money.currency, shell.locale);
      if (amountMinor === null || amountMinor <= 0 || amountMinor > money.refundableMinor) {
        return renderOrder(ctx, params.orderId, null, 422, {
          amount: amountText,
          reason,
          error: shell.t.errRefundAmount(left),
        });
      }
      if (formField(ctx, 'confirm') !== '1') {
        return sendPage(ctx, {
          status: 200,
          html: confirmRefundView(shell, params.orderId, money, amountMinor, reason),
        });
      }
      let made: Awaited<ReturnType<typeof requestRefund>>;
      try {
        made = await requestRefund(
          ctx.deps,
          store.id,
          params.orderId,
          { amountMinor, reason: reason || null },
          { merchantTokenId: null },
        );
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof ValidationError || err instanceof ConflictError) {
          return renderOrder(ctx, params.orderId, null, 422, {
            amount: amountText,
            reason,
            error: shell.t.errRefundAmount(left),
          });
        }
        throw err;
      }
      // Post, redirect, get: a reload shows the order, never the form's answer again.
      return sendPage(ctx, {
        status: 303,
        location: `/merchant/orders/${params.orderId}?refunded=${made.refund.id}`,
      });
    },
  }),
  // Sending the delivery again (shared/services/fulfilment/resend.ts; docs/email.md "Sending again").
  defineRoute({
    method: 'post',
    path: '/merchant/orders/{orderId}/resend',
    interface: 'platform',
    operationId: 'dashboardOrderResend',
    summary: 'Merchant dashboard: send an order’s delivery again, by message or by e-mail',
    description:
      'Form fields `channel` (`message` or `email`), `nonce` (32 hex characters drawn by the order page) and ' +
      '`_csrf`. Sends every key, license key and download address of a paid order again, under a key of its ' +
      'own: the same nonce again (a double click) sends nothing more. Audited as `order.delivery_resent`. ' +
      'Owners, managers and support.',
    guards: signedIn('orders.advance'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      ...formBody({ channel: Joi.string().max(10), nonce: Joi.string().max(64) }),
    },
    responses: {
      200: htmlResponse('The order, saying the delivery is on its way again (or was sent for this nonce).'),
      404: htmlResponse('No such order in this store.'),
      422: htmlResponse(
        'Not paid, nothing to send, no e-mail address, or a bad channel or nonce (the order page, saying so).',
      ),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const t = resendStrings(shell);
      const channel = formField(ctx, 'channel');
      if (channel !== 'message' && channel !== 'email') return renderOrder(ctx, params.orderId, null, 422);
      try {
        const outcome = await resendDelivery(
          ctx.deps,
          dashboardActor(store.id, s.user),
          params.orderId,
          channel as ResendChannel,
          formField(ctx, 'nonce'),
        );
        return renderOrder(ctx, params.orderId, outcome === 'queued' ? t.queued[channel] : t.duplicate);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof ResendRefusedError) {
          return renderOrder(ctx, params.orderId, t.refused[err.reason], 422);
        }
        throw err;
      }
    },
  }),
];
