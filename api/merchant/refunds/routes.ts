import { findStoreOrder } from '../../../shared/services/orders/read';
import { requestRefund } from '../../../shared/services/orders/refund';
import { listOrderRefunds, refundSummary } from '../../../shared/services/refunds';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { refundSchema, refundSummarySchema } from '../../../shared/services/refunds/schema';
import { idParams, PAGINATION_NOTE, pageBody } from '../common';
import { idempotencyKey } from '../orders/schemas';
import { merchantOk, merchantRefused, obj, pageOf, replayed } from '../responses';
import * as schemas from './schemas';

/** The refund and the order's money, declared once with their types (shared/services/refunds/schema.ts). */
export const RefundObject = refundSchema;
const Summary = refundSummarySchema;
const CreatedRefund = obj({
  refund: RefundObject,
  order_status: { type: 'integer', minimum: 1, maximum: 6, description: 'The order’s status after it.' },
});

const notFound = merchantRefused(
  'not_found',
  'No such order in this store (another store’s order too).',
  'Order not found',
);

export const merchantRefundRoutes = [
  defineRoute({
    method: 'post',
    path: '/shawarma/orders/{id}/refunds',
    interface: 'merchant',
    operationId: 'merchantCreateRefund',
    summary: 'Refund an order, in full or in part',
    description:
      'Returns money to the buyer through the provider that took the payment: Moyasar (card, mada, ' +
      'Apple Pay, STC Pay) and the sandbox refund through their APIs; bank transfer, PayPal and crypto ' +
      'record a **manual** refund with a note (you return the money; it is `succeeded` at once). A ' +
      'provider refund answers `pending` and is sent by a worker, retried while the provider is out of ' +
      'reach, and never sent twice. `amount` omitted: everything that is left. Refunds never exceed ' +
      'what was paid minus what is refunded or pending: more is a 422 naming `amount`, also under ' +
      'simultaneous requests. `withdraw_goods` (default: true for a full refund, false for a partial ' +
      'one) moves the order to Refunded (6) with every effect of that status. **Idempotent** with an ' +
      '`Idempotency-Key` header: the same key answers the refund it made (200). Webhook events: ' +
      '`refund.created`, `refund.succeeded`, `refund.failed`.',
    guards: (deps) => [...merchantGuards(deps), idempotencyKey()],
    headers: ['IdempotencyKey'],
    request: {
      params: idParams,
      body: schemas.refundBody,
      example: { amount: '10.00', reason: 'Customer request', withdraw_goods: false },
    },
    responses: {
      201: merchantOk('The refund: pending (provider) or succeeded (manual).', CreatedRefund),
      200: replayed(
        merchantOk('The same Idempotency-Key was used before: that refund, nothing new.', CreatedRefund),
      ),
      400: merchantRefused('malformed_json', 'The body is not a JSON object.', 'Malformed JSON body'),
      404: notFound,
      409: merchantRefused(
        'conflict',
        'The Idempotency-Key was used for another refund.',
        'This Idempotency-Key was already used for another refund',
      ),
    },
    handler: async (ctx, { params, body }) => {
      const result = await requestRefund(
        ctx.deps,
        ctx.state.store!.id,
        params.id,
        schemas.refundInput(body, ctx.state.idempotencyKey as string | undefined, ctx.state.store!.currency),
        { merchantTokenId: ctx.state.merchantToken?.id ?? null },
      );
      return reply(
        { refund: result.refund, order_status: result.order_status },
        {
          status: result.created ? 201 : 200,
          message: result.created ? 'Refund created' : 'Refund already created with this Idempotency-Key',
          headers: result.created ? {} : { 'Idempotent-Replayed': 'true' },
        },
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/orders/{id}/refunds',
    interface: 'merchant',
    operationId: 'merchantListRefunds',
    summary: 'An order’s refunds (paginated)',
    description: `Newest first, with the money summary of the order’s payment in \`summary\`. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { params: idParams, query: schemas.refundsQuery },
    responses: {
      200: merchantOk('One page of refunds and the summary.', {
        allOf: [pageOf(RefundObject), obj({ summary: Summary })],
      }),
      404: notFound,
    },
    handler: async (ctx, { params, query }) => {
      const { knex } = ctx.deps;
      const order = await findStoreOrder(knex, ctx.state.store!.id, params.id);
      const page = await listOrderRefunds(knex, ctx.state.store!.id, params.id, query);
      return { ...pageBody(page), summary: await refundSummary(knex, order) };
    },
  }),
];
