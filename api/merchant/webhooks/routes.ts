import { ValidationError } from '../../../shared/errors';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../../../shared/services/webhooks/endpoints';
import { listDeliveries, sendTestEvent } from '../../../shared/services/webhooks/test-event';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import {
  CreatedWebhookEndpoint,
  merchantOk,
  merchantRefused,
  pageOf,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookTestSent,
} from '../responses';
import * as schemas from './schemas';

const EVENTS =
  'Events: `order.created`, `order.paid`, `order.status_changed`, `license.revoked`, ' +
  '`subscription.created`, `subscription.cancelled`, `subscription.renewed`, `subscription.payment_failed`, ' +
  '`subscription.renewal_link_sent`, `subscription.updated`, `subscription.expired`, `refund.created`, ' +
  '`refund.succeeded`, `refund.failed`, or a whole family: `order.*`, `subscription.*`, `refund.*`, ' +
  '`license.*`. Each delivery is a POST of ' +
  '`{id, type, created_at, store_id, data}` signed with the endpoint’s secret: header ' +
  '`X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`; retried with back-off for about a ' +
  'day until a 2xx. Private, loopback and link-local addresses are never contacted. Verification in Node ' +
  'and Python: [docs/webhooks.md](/docs/webhooks.md).';

export const merchantWebhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/shawarma/webhooks',
    interface: 'merchant',
    operationId: 'merchantCreateWebhook',
    summary: 'Register a webhook endpoint',
    description: `The answer holds the signing \`secret\`, shown once. At most 10 per store. ${EVENTS}`,
    guards: merchantGuards,
    request: {
      body: schemas.createBody,
      example: { url: 'https://erp.example.com/hooks/matjar', events: ['order.paid', 'subscription.*'] },
    },
    responses: {
      201: merchantOk('The endpoint, with its secret.', CreatedWebhookEndpoint),
      400: merchantRefused(
        'invalid_request',
        'The store has 10 endpoints already.',
        'A store can have at most 10 webhook endpoints',
      ),
    },
    handler: async (ctx, { body }) => {
      const refusal = schemas.webhookUrlRefusal(body.url, ctx.deps.config.nodeEnv);
      if (refusal) throw ValidationError.field('url', refusal);
      const endpoint = await createEndpoint(ctx.deps, ctx.state.store!.id, {
        url: body.url,
        events: body.events,
        description: body.description || undefined,
      });
      return reply(endpoint, {
        status: 201,
        message: 'Webhook endpoint created: keep the secret, it is shown once',
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/webhooks',
    interface: 'merchant',
    operationId: 'merchantListWebhooks',
    summary: 'List webhook endpoints',
    description: `With their delivery counts. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: listQuery<object>({}) },
    responses: { 200: merchantOk('One page of endpoints.', pageOf(WebhookEndpoint)) },
    handler: async (ctx, { query }) =>
      pageBody(await listEndpoints(ctx.deps.knex, ctx.state.store!.id, query)),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/webhooks/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteWebhook',
    summary: 'Delete a webhook endpoint',
    description: 'Its pending deliveries are dropped.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('Deleted.', { type: 'null' }),
      404: merchantRefused(
        'webhook_endpoint_not_found',
        'No such endpoint in this store.',
        'Webhook endpoint not found',
      ),
    },
    handler: async (ctx, { params }) => {
      await deleteEndpoint(ctx.deps.knex, ctx.state.store!.id, params.id);
      return reply(null, { message: 'Webhook endpoint deleted' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/webhooks/{id}/test',
    interface: 'merchant',
    operationId: 'merchantSendWebhookTestEvent',
    summary: 'Send a test event to a webhook endpoint',
    description:
      'Delivers a signed sample of `type` to this endpoint through the normal path (queue, signature, ' +
      'retries, address guard), whether or not it subscribes to that type. The body is the real event’s ' +
      'with `"test": true` and an `id` beginning `test_`. Follow it in the delivery log. ' +
      'See [docs/webhooks.md](/docs/webhooks.md).',
    guards: merchantGuards,
    request: { params: idParams, body: schemas.testBody, example: { type: 'order.paid' } },
    responses: {
      202: merchantOk('Queued for delivery.', WebhookTestSent),
      400: merchantRefused(
        'webhook_event_type_invalid',
        'Not an event type.',
        'Unknown event type: order.shipped',
      ),
      404: merchantRefused(
        'webhook_endpoint_not_found',
        'No such endpoint in this store.',
        'Webhook endpoint not found',
      ),
    },
    handler: async (ctx, { params, body }) =>
      reply(await sendTestEvent(ctx.deps, ctx.state.store!.id, params.id, body.type), {
        status: 202,
        message: 'Test event queued',
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/webhooks/{id}/deliveries',
    interface: 'merchant',
    operationId: 'merchantListWebhookDeliveries',
    summary: 'The delivery log of a webhook endpoint',
    description:
      'Newest first. A failed attempt says why in `failure_reason`: `refused_address` (a private, loopback or ' +
      'link-local address: never retried), `http_status` (the endpoint answered `response_status`), ' +
      '`timeout`, `connection_error`; `last_error` has the detail. ' +
      PAGINATION_NOTE,
    guards: merchantGuards,
    request: { params: idParams, query: listQuery<object>({}) },
    responses: {
      200: merchantOk('One page of deliveries.', pageOf(WebhookDelivery)),
      404: merchantRefused(
        'webhook_endpoint_not_found',
        'No such endpoint in this store.',
        'Webhook endpoint not found',
      ),
    },
    handler: async (ctx, { params, query }) =>
      pageBody(await listDeliveries(ctx.deps.knex, ctx.state.store!.id, params.id, query)),
  }),
];
