import Joi from 'joi';
import { receiveWebhook } from '../../shared/services/payments';
import { jsonResponse, object, schemaRef } from '../openapi/components';
import { defineRoute } from '../http/route';
import type { AppContext } from '../context';

/** The request body exactly as received (koa-body keeps it as rawBody with includeUnparsed), for signatures. */
function rawBody(ctx: AppContext): string | undefined {
  return typeof ctx.request.rawBody === 'string' ? ctx.request.rawBody : undefined;
}

const WEBHOOK_RULES =
  'Verified over the exact bytes received with the credentials of the store whose payment the event names: ' +
  '**moyasar**, the body’s `secret_token` equals the store’s webhook secret (constant-time); **coinbase**, ' +
  '`X-CC-Webhook-Signature` is the hex HMAC-SHA256 of the body keyed with the store’s shared secret; ' +
  '**sandbox**, `X-Sandbox-Signature` is the hex HMAC-SHA256 of the body keyed with a key derived from the ' +
  'platform secret. A valid event is stored once per provider event id and queued; the worker then asks the ' +
  'provider for the payment’s status (never trusting the event), checks amount and currency, and creates the ' +
  'order. Duplicates and replays are acknowledged and change nothing. An event about no payment of this ' +
  'platform is acknowledged and ignored. Configure the provider to send to `{PUBLIC_BASE_URL}/webhooks/{provider}`.';

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks/{provider}',
    interface: 'platform',
    operationId: 'receivePaymentWebhook',
    summary: 'Receive a payment provider’s webhook',
    description: WEBHOOK_RULES,
    request: {
      params: Joi.object<{ provider: string }, true>({
        provider: Joi.string().max(40).required().description('sandbox, moyasar or coinbase.'),
      }),
    },
    responses: {
      200: jsonResponse(
        'Received.',
        object(
          {
            received: { const: true },
            status: { type: 'string', enum: ['queued', 'duplicate', 'ignored'] },
            event_id: { type: 'string' },
          },
          ['event_id'],
        ),
        { received: true, status: 'queued', event_id: 'evt_…' },
      ),
      400: 'PlatformError',
      401: {
        description: 'The signature does not verify; nothing was stored.',
        content: { 'application/json': { schema: schemaRef('PlatformError') } },
      },
      404: 'PlatformError',
    },
    handler: (ctx, { params }) => receiveWebhook(ctx.deps, params.provider, rawBody(ctx), ctx.headers),
  }),
];
