import path from 'node:path';
import { orderFraud } from '../../../shared/services/fraud/order-view';
import { emailsForOrder } from '../../../shared/services/emails';
import { requestDeps } from '../../request-deps';
import { createMerchantOrder } from '../../../shared/services/checkout/create-order';
import { listOrders, orderDetail, orderUpload } from '../../../shared/services/orders/read';
import { updateOrderStatus } from '../../../shared/services/orders/transitions';
import { documentUrl } from '../../../shared/services/invoices/read';
import { urlDeps } from '../../invoices/routes';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { idParams, PAGINATION_NOTE, pageBody } from '../common';
import {
  CreatedOrder,
  merchantOk,
  merchantRefused,
  OrderDetail,
  OrderSummary,
  pageOf,
  replayed,
  StatusChange,
} from '../responses';
import * as schemas from './schemas';
import type { SchemaObject } from '../../openapi/types';

const notFound = merchantRefused(
  'not_found',
  'No such order in this store (another store’s order too).',
  'Order not found',
);

/**
 * The order detail's schema, read without its type: orderDetail() (shared/services/orders/read.ts) has the
 * type of what it builds (the dashboard's order page reads it without a cast), not one derived from this
 * schema, so this answer is held to its schema by the contract tests.
 */
const orderDetailAnswer: SchemaObject = OrderDetail;

export const merchantOrderRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/orders',
    interface: 'merchant',
    operationId: 'merchantListOrders',
    summary: 'List orders (paginated)',
    description: `Newest first, with filters. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: schemas.ordersQuery },
    responses: { 200: merchantOk('One page of orders.', pageOf(OrderSummary)) },
    handler: async (ctx, { query }) => {
      const { page, per_page, ...filters } = query;
      const storeId = ctx.state.store!.id;
      return pageBody(
        await ctx.deps.readKnex.run(storeId, (knex) =>
          listOrders(knex, storeId, filters, { page, per_page }),
        ),
      );
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/orders',
    interface: 'merchant',
    operationId: 'merchantCreateOrder',
    summary: 'Create an order for a customer',
    description:
      'The guest checkout’s fields. A total of zero creates the order (`order_id`); otherwise a checkout ' +
      'is opened and `payment_url` is the payment link to send the customer. **Idempotent**: the same ' +
      'content within 5 minutes answers 200 with the same ids (header `Idempotent-Replayed: true`) and ' +
      'creates nothing, also under simultaneous requests. With an `Idempotency-Key` header the key decides ' +
      'instead, for 24 hours (same key, other body: 409). 422 for invalid fields, 400 for coupon, stock ' +
      'and payment-method refusals, as the guest checkout.',
    guards: (deps) => [...merchantGuards(deps), schemas.idempotencyKey()],
    headers: ['IdempotencyKey'],
    request: {
      body: schemas.createBody,
      example: {
        product_id: 10,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_phone: '500000001',
        customer_country_code: '966',
      },
    },
    responses: {
      201: merchantOk('Created: the order (zero total) or the checkout with its payment link.', CreatedOrder),
      200: replayed(
        merchantOk('The same request was made before: the same ids, nothing created.', CreatedOrder),
      ),
      400: merchantRefused(
        'invalid_request',
        'Coupon refused, insufficient stock, no payment method, or a body that is not a JSON object.',
        'Insufficient stock',
      ),
      403: merchantRefused(
        'checkout_blocked',
        'A fraud control of the store refused the buyer (docs/fraud.md): nothing was created.',
        'This checkout cannot be completed.',
      ),
      409: merchantRefused(
        'conflict',
        'The Idempotency-Key was used with another body, or an identical request is still running.',
        'This Idempotency-Key was already used with a different request body',
      ),
    },
    handler: async (ctx, { body }) => {
      const result = await createMerchantOrder(
        requestDeps(ctx, { buyer: false }),
        ctx.state.store!,
        body,
        ctx.state.idempotencyKey as string | undefined,
      );
      return reply(result.data, {
        status: result.created ? 201 : 200,
        message:
          result.data.order_id !== null
            ? 'Order created'
            : 'Checkout created: send payment_url to the customer',
        headers: result.created ? {} : { 'Idempotent-Replayed': 'true' },
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/orders/{id}',
    interface: 'merchant',
    operationId: 'merchantGetOrder',
    summary: 'Order details',
    description:
      'Items, customer, payment, coupon, custom field values (uploads as links), the code keys sold, the ' +
      'licenses with their status, the FiveM commands with their state, subscriptions, and the history of ' +
      'merchant status changes; `invoice_url`, once the order is paid, is the buyer’s invoice page (a ' +
      'receipt for a store without a VAT number); `emails`, the e-mails sent to the buyer about it, a ' +
      'hard bounce included; `disputed` (a provider dispute, with `dispute` and its `deadline`) and `risk` ' +
      '(the score and reasons of the fraud controls, docs/fraud.md).',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('The order.', orderDetailAnswer), 404: notFound },
    handler: async (ctx, { params }) => ({
      ...(await orderDetail(ctx.deps.knex, ctx.state.store!.id, params.id, ctx.deps.config.publicBaseUrl)),
      invoice_url: await documentUrl(ctx.deps.knex, urlDeps(ctx.deps), params.id),
      emails: await emailsForOrder(ctx.deps.knex, params.id),
      ...(await orderFraud(ctx.deps.knex, ctx.state.store!.id, params.id)),
    }),
  }),
  defineRoute({
    method: 'put',
    path: '/shawarma/orders/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateOrderStatus',
    summary: 'Update order status',
    description:
      'Body `{"status": code}`. Allowed: 1→2,3,4,5; 2→3,4,5,6; 3→4,5,6; 4→6; 5 and 6 are final. Others are ' +
      '422 naming the allowed statuses; the current status again is 200 with `changed: false`. Side ' +
      'effects, in the same transaction with an audit row: 2→3/4 confirms the manual payment; 1→3/4 marks ' +
      'the payment paid; →4 activates licenses; →5/6 revokes every license, cancels subscriptions, ' +
      'withdraws FiveM commands not yet collected, returns undelivered keys and stock, and (6) refunds ' +
      'what is left of a paid payment in full, as `POST /shawarma/orders/{id}/refunds` would (its id in ' +
      '`refund_id`).',
    guards: merchantGuards,
    request: { params: idParams, body: schemas.statusBody, example: { status: 4 } },
    responses: {
      200: merchantOk('The change (or none).', StatusChange),
      400: merchantRefused('malformed_json', 'The body is not a JSON object.', 'Malformed JSON body'),
      404: notFound,
    },
    handler: async (ctx, { params, body }) => {
      const result = await updateOrderStatus(ctx.deps, ctx.state.store!.id, params.id, body.status, {
        merchantTokenId: ctx.state.merchantToken?.id ?? null,
      });
      return reply(result, {
        message: result.changed ? 'Order status updated' : 'Order already has this status',
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/orders/{id}/uploads/{index}',
    interface: 'merchant',
    operationId: 'merchantGetOrderUpload',
    summary: 'A file the buyer uploaded',
    description: 'The file of custom field `index`, as an attachment with its content type.',
    guards: merchantGuards,
    request: { params: schemas.uploadParams },
    responses: {
      200: {
        description: 'The file.',
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
      404: merchantRefused('not_found', 'No such order, or no file in that field.', 'Upload not found'),
    },
    handler: async (ctx, { params }) => {
      const file = await orderUpload(ctx.deps.knex, ctx.state.store!.id, params.id, params.index);
      ctx.status = 200;
      ctx.type = file.mime_type;
      ctx.attachment(path.basename(file.original_name));
      ctx.body = await ctx.deps.storage.read(file.storage_key);
      return undefined;
    },
  }),
];
