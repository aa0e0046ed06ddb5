import { collectEvents, dailySaltOf, MAX_BATCH_EVENTS } from '../../../shared/services/analytics';
import { InvalidError } from '../../../shared/errors';
import type { AppContext, AppMiddleware } from '../../context';
import { input } from '../../context';
import type { BatchBody, EventBody } from './schemas';

export const EMPTY_BATCH = 'events is required and must not be empty';

function collectDeps(ctx: AppContext) {
  return { queues: ctx.deps.queues, salt: dailySaltOf(ctx.deps.redis, ctx.deps.config.queuePrefix) };
}

const client = (ctx: AppContext) => ({ ip: ctx.ip, userAgent: ctx.get('User-Agent') });

/** Events beyond the 30th are dropped here, silently, before they are validated or counted. */
export function keepFirstEvents(): AppMiddleware {
  return async (ctx, next) => {
    const body = ctx.request.body as { events?: unknown } | undefined;
    if (!body || typeof body !== 'object' || body.events === undefined || body.events === null) {
      throw new InvalidError(EMPTY_BATCH);
    }
    if (!Array.isArray(body.events) || body.events.length === 0) throw new InvalidError(EMPTY_BATCH);
    body.events = body.events.slice(0, MAX_BATCH_EVENTS);
    await next();
  };
}

/** How many events this request carries, for the per-IP events limit. */
export function eventCount(ctx: AppContext): number {
  const events = (ctx.request.body as { events?: unknown } | undefined)?.events;
  return Array.isArray(events) ? events.length : 1;
}

export async function collect(ctx: AppContext): Promise<void> {
  const { body } = input<EventBody>(ctx);
  await collectEvents(collectDeps(ctx), ctx.state.store!, [body], client(ctx));
  ctx.status = 202;
  ctx.body = { status: 'ok' };
}

export async function collectBatch(ctx: AppContext): Promise<void> {
  const { body } = input<BatchBody>(ctx);
  const processed = await collectEvents(collectDeps(ctx), ctx.state.store!, body.events, client(ctx));
  ctx.status = 202;
  ctx.body = { status: 'ok', processed };
}
