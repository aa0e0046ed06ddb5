import Joi from 'joi';
import { InvalidError } from '../../../shared/errors';
import { CollectedEvent, collectEvents, MAX_BATCH_EVENTS } from '../../../shared/services/analytics';
import type { AppContext, AppMiddleware } from '../../context';
import { analyticsEventsLimit, analyticsGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { jsonResponse, schemaRef } from '../../openapi/components';
import type { Deps } from '../../../shared/deps';
import type { SchemaObject } from '../../openapi/types';

/**
 * POST /api/storefront/analytics/collect and /collect/batch: no token, the store from Host or Origin (400
 * when neither names one), 120 events a minute per IP where each event of a batch counts. Answered 202
 * once the events are handed to the analytics queue; a worker writes them in batches.
 */

export const EMPTY_BATCH = 'events is required and must not be empty';

/**
 * An event's `properties`, serialized: at most 2 KB (the operator contract, docs/operations.md), so one
 * cheap anonymous request cannot make the analytics queue and table carry megabytes.
 */
export const MAX_PROPERTIES_BYTES = 2048;

/** One event: the spec's fields, all optional, with their length limits. */
const event = Joi.object<CollectedEvent, true>({
  type: Joi.string()
    .max(50)
    .description(
      'pageview, event (default) or outbound_click; web_vital, js_error, time_on_page and scroll_depth are ' +
        'accepted and not recorded.',
    ),
  session_id: Joi.string().max(64),
  visitor_id: Joi.string().max(64),
  url: Joi.string().max(2000),
  path: Joi.string().max(500),
  event_name: Joi.string().max(100),
  properties: Joi.object()
    .unknown(true)
    .custom((value: Record<string, unknown>, helpers) =>
      Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_PROPERTIES_BYTES
        ? helpers.error('object.size')
        : value,
    )
    .messages({ 'object.size': `properties must be at most ${MAX_PROPERTIES_BYTES} bytes as JSON` })
    .description(`Free-form; at most ${MAX_PROPERTIES_BYTES} bytes serialized as JSON (UTF-8), else a 422.`),
  title: Joi.string().max(500),
  referrer: Joi.string().max(2000).allow(''),
  screen_width: Joi.number().integer().min(0).max(100_000),
  destination: Joi.string().max(2000),
  text: Joi.string().max(200).allow(''),
});

const batch = Joi.object<{ events: CollectedEvent[] }, true>({
  events: Joi.array()
    .items(event)
    .min(1)
    .max(MAX_BATCH_EVENTS)
    .required()
    .description('At most 30 events are kept; the rest are dropped.'),
});

/** Events beyond the 30th are dropped before they are validated or counted; none at all is a 400. */
function keepFirstEvents(): AppMiddleware {
  return async (ctx, next) => {
    const body = ctx.request.body as { events?: unknown } | undefined;
    const events = body && typeof body === 'object' ? body.events : undefined;
    if (!Array.isArray(events) || events.length === 0) throw new InvalidError(EMPTY_BATCH);
    body!.events = events.slice(0, MAX_BATCH_EVENTS);
    await next();
  };
}

function eventCount(ctx: AppContext): number {
  const events = (ctx.request.body as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? events.length : 1;
}

function collectDeps(ctx: AppContext) {
  return {
    queues: ctx.deps.queues,
    knex: ctx.deps.knex,
    logger: ctx.deps.logger,
    salt: ctx.deps.services.analyticsSalt,
    batcher: ctx.deps.services.analyticsBatcher,
  };
}

const client = (ctx: AppContext) => ({ ip: ctx.ip, userAgent: ctx.get('User-Agent') });

/** The one error object (docs/errors.md), as api/envelopes.ts answers every analytics failure. */
const analyticsError: SchemaObject = schemaRef('AnalyticsError');

const commonAnswers = {
  400: jsonResponse('The store could not be resolved from Host or Origin.', analyticsError),
  // The interface's answer to invalid input (api/interfaces.ts): a field breaks its type or length limit.
  422: 'AnalyticsError',
};

export const storefrontAnalyticsRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/storefront/analytics/collect',
    interface: 'analytics',
    operationId: 'analyticsCollect',
    summary: 'Record one event',
    guards: (deps: Deps) => [...analyticsGuards(deps), analyticsEventsLimit(() => 1)],
    request: { body: event, example: { type: 'pageview', path: '/games', referrer: 'https://google.com/' } },
    responses: {
      202: jsonResponse('Accepted.', schemaRef('AnalyticsAccepted'), { status: 'ok' }),
      ...commonAnswers,
    },
    handler: async (ctx, { body }) => {
      await collectEvents(collectDeps(ctx), ctx.state.store!, [body], client(ctx));
      ctx.status = 202;
      ctx.body = { status: 'ok' };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/storefront/analytics/collect/batch',
    interface: 'analytics',
    operationId: 'analyticsCollectBatch',
    summary: 'Record up to 30 events',
    description: '`processed` counts the events taken (at most 30), skipped types included.',
    guards: (deps: Deps) => [...analyticsGuards(deps), keepFirstEvents(), analyticsEventsLimit(eventCount)],
    request: { body: batch, example: { events: [{ type: 'pageview', path: '/' }] } },
    responses: {
      202: jsonResponse('Accepted.', schemaRef('AnalyticsAccepted'), { status: 'ok', processed: 1 }),
      400: jsonResponse('The store could not be resolved, or `events` is missing or empty.', analyticsError),
      422: commonAnswers[422],
    },
    handler: async (ctx, { body }) => {
      const processed = await collectEvents(collectDeps(ctx), ctx.state.store!, body.events, client(ctx));
      ctx.status = 202;
      ctx.body = { status: 'ok', processed };
    },
  }),
];
