import Joi from 'joi';
import { MAX_BATCH_EVENTS, CollectedEvent } from '../../../shared/services/analytics';

/**
 * One event (spec: Analytics collection), every field optional with its length limit. `type` is any short
 * string: the recorded types are kept, the skipped ones and unknown ones are accepted and not recorded.
 */
export const eventSchema = Joi.object({
  type: Joi.string().max(50),
  session_id: Joi.string().max(64),
  visitor_id: Joi.string().max(64),
  url: Joi.string().max(2000),
  path: Joi.string().max(500),
  event_name: Joi.string().max(100),
  properties: Joi.object().unknown(true),
  title: Joi.string().max(500),
  referrer: Joi.string().max(2000).allow(''),
  screen_width: Joi.number().integer().min(0).max(100_000),
  destination: Joi.string().max(2000),
  text: Joi.string().max(200).allow(''),
});
export type EventBody = CollectedEvent;

/**
 * A batch: `events` required and not empty (400, spec: Analytics errors, checked by the handler); events
 * beyond the 30th are dropped before validation, so they can neither fail nor count.
 */
export const batchBody = Joi.object({
  events: Joi.array().items(eventSchema).max(MAX_BATCH_EVENTS),
});
export interface BatchBody {
  events: CollectedEvent[];
}
