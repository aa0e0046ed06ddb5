import Joi from 'joi';
import { SUBSCRIBABLE_EVENTS } from '../../../shared/services/merchant/webhooks/events';
import { query } from '../common';

export const listQuery = query({});

/**
 * url: http or https without credentials (https only when NODE_ENV=production, checked in the handler's
 * service call); events: at least one of the subscribable events.
 */
export const createBody = Joi.object({
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
