import type { SchemaObject } from '../../openapi/types';
import { bool, int, nint, nstr, ntime, obj, str, time } from './scalars';

/** Webhook endpoints, test events and deliveries. */
const endpointProps: Record<string, SchemaObject> = {
  id: int,
  url: { type: 'string', format: 'uri' },
  events: { type: 'array', items: str },
  description: nstr,
  created_at: time,
  deliveries: obj({ pending: int, delivered: int, failed: int }),
};
export const WebhookEndpoint = obj(endpointProps);
export const CreatedWebhookEndpoint = obj({
  ...endpointProps,
  secret: { type: 'string', description: 'The signing secret, shown this once.' },
});

export const WebhookTestSent = obj({ delivery_id: int, event_id: str, type: str });
export const WebhookDelivery = obj({
  id: int,
  event_id: str,
  event_type: str,
  test: bool,
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  attempts: int,
  response_status: nint,
  failure_reason: {
    type: ['string', 'null'],
    enum: ['refused_address', 'http_status', 'timeout', 'connection_error', null],
  },
  last_error: nstr,
  created_at: time,
  delivered_at: ntime,
});
