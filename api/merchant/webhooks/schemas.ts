import Joi from 'joi';
import { MERCHANT_EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '../../../shared/services/webhooks/events';

/** url: http or https without credentials (https only when NODE_ENV=production); events: one or more. */
export const createBody = Joi.object<{ url: string; events: string[]; description?: string }, true>({
  url: Joi.string()
    .trim()
    .max(2000)
    .uri({ scheme: ['http', 'https'] })
    .custom((v: string, helpers) => {
      const u = new URL(v);
      return u.username || u.password ? helpers.error('url.credentials') : v;
    })
    .required(),
  events: Joi.array()
    .items(Joi.string().valid(...SUBSCRIBABLE_EVENTS))
    .min(1)
    .max(SUBSCRIBABLE_EVENTS.length)
    .unique()
    .required(),
  description: Joi.string().trim().max(200).allow(''),
})
  .unknown(false)
  .messages({ 'url.credentials': '{{#label}} must not carry a user name or password' });

export const HTTPS_REQUIRED = 'The webhook url must use https.';

/**
 * The one rule of where a webhook may point beyond the schema, for the Merchant API and the dashboard's
 * webhooks page alike: in production (NODE_ENV=production) https only, so event payloads (buyers' names,
 * order totals) and their signatures never cross the network in the clear (docs/security.md). Null when
 * the url may be used, else the reason.
 */
export function webhookUrlRefusal(url: string, nodeEnv: string): string | null {
  return nodeEnv === 'production' && !url.startsWith('https://') ? HTTPS_REQUIRED : null;
}

/** The event type of a test event: any type the API delivers (wildcards are for subscriptions only). */
export const testBody = Joi.object<{ type: string }, true>({
  type: Joi.string()
    .valid(...MERCHANT_EVENT_TYPES)
    .required(),
}).unknown(false);
