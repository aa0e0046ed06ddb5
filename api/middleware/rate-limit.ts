import type { LimitDefinition } from '../../shared/rate-limits';
import { RateLimitedError, UnauthenticatedError } from '../../shared/errors';
import { LimitUse, mostRestrictive, RateLimitUnavailableError } from '../../shared/services/rate-limiter';
import type { Deps } from '../../shared/deps';
import type { AppContext, AppMiddleware } from '../context';

export interface RateLimitRule {
  readonly def: LimitDefinition;
  /** The bucket this request counts against; null leaves this limit out (e.g. no phone in the body). */
  readonly key: (ctx: AppContext) => string | null;
  /** Points this request costs; an analytics batch costs one per event. Defaults to 1. */
  readonly cost?: (ctx: AppContext) => number;
}

/**
 * The client address. Koa reads X-Forwarded-For only when the app was built with `proxy: true`
 * (TRUST_PROXY=1); otherwise a client could pick its own bucket by sending the header.
 */
export const byClientIp = (ctx: AppContext): string => ctx.ip || 'unknown';

/** A single bucket shared by every caller (the Embed API's global limit). */
export const globally = (): string => 'all';

/** A string field of the JSON body, trimmed; null when absent or empty. */
export const byBodyField =
  (field: string) =>
  (ctx: AppContext): string | null => {
    const body: unknown = ctx.request.body;
    if (!body || typeof body !== 'object') return null;
    const value: unknown = (body as Record<string, unknown>)[field];
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    const text = String(value).trim();
    return text === '' ? null : text;
  };

function setHeaders(
  ctx: AppContext,
  limit: number,
  remaining: number,
  resetSeconds: number,
  force: boolean,
): void {
  // A request can pass several rateLimit() middlewares (interface-wide, then per endpoint): the client
  // sees the tightest bucket of them all.
  const previous = ctx.response.get('X-RateLimit-Remaining');
  if (!force && previous !== '' && Number(previous) <= remaining) return;
  ctx.set('X-RateLimit-Limit', String(limit));
  ctx.set('X-RateLimit-Remaining', String(remaining));
  // Seconds until that bucket's window starts again (a delta, like Retry-After; docs/errors.md).
  ctx.set('X-RateLimit-Reset', String(Math.max(0, Math.ceil(resetSeconds))));
}

/**
 * Consumes every rule's bucket for the request; when any is exhausted the request ends with 429
 * (RateLimitedError, formatted by the interface's envelope) and Retry-After. X-RateLimit-Limit and
 * X-RateLimit-Remaining describe the most restrictive bucket, on successes and 429s alike.
 * Redis being unreachable answers 503 rather than serving traffic unmetered, except on a cached read
 * (`cachedRead`): there the same limits are counted in the process's memory (docs/outages.md).
 *
 * All the rules of one rateLimit() cost one Redis call (RateLimiter.consume). The two chains that pass two
 * of them keep both on purpose: the FiveM API's per-server bucket is known only once fivemSecret() has
 * found the server, and the Storefront's verify limit sits after storefrontStore(), so a request that is
 * refused earlier (429 on the per-IP limit, 400 for an unknown store) does not count against it.
 */
export function rateLimit(rules: readonly RateLimitRule[]): AppMiddleware {
  return async (ctx, next) => {
    const limiter = ctx.deps.services.rateLimiter;
    if (!limiter.enabled) return next();

    const uses: LimitUse[] = [];
    for (const rule of rules) {
      const key = rule.key(ctx);
      const cost = rule.cost ? Math.floor(rule.cost(ctx)) : 1;
      if (key === null || !(cost > 0)) continue;
      uses.push({ def: rule.def, key, cost });
    }
    if (uses.length === 0) return next();

    const states = await limiter.consume(uses).catch((err: unknown) => {
      if (err instanceof RateLimitUnavailableError) {
        if (ctx.state.cachedRead === true) {
          ctx.deps.logger.warn(
            { requestId: ctx.state.requestId },
            'rate limits counted in this process: Redis unreachable',
          );
          return limiter.consumeLocally(uses);
        }
        ctx.deps.logger.warn(
          { requestId: ctx.state.requestId },
          'rate limits unavailable: Redis unreachable',
        );
      }
      throw err;
    });
    const top = mostRestrictive(states);
    setHeaders(ctx, top.limit, top.remaining, top.resetSeconds, top.exceeded);
    if (top.exceeded) {
      ctx.set('Retry-After', String(top.resetSeconds));
      throw new RateLimitedError(top.resetSeconds);
    }
    await next();
  };
}

/**
 * Wraps an authentication guard (`auth`) so that its failures are limited per client IP, checked BEFORE
 * the guard looks anything up: once more than `def.points` authentications have failed from an IP within
 * the window, every further attempt from it (right credentials or wrong) is a 429 for the rest of the window, in the
 * interface's envelope, and costs no database read. Only the guard's own refusal (UnauthenticatedError,
 * before it passes the request on) counts; what the handler does later never does.
 *
 * Requests already in flight when the limit is reached are not held back: a concurrent burst can exceed
 * it by what one round of requests carries, and everything after that burst is refused.
 */
export function failedAuthLimit(
  def: LimitDefinition,
  auth: AppMiddleware,
  /** Which refusals are failed attempts; by default every one. */
  counts: (ctx: AppContext) => boolean = () => true,
): AppMiddleware {
  return async (ctx, next) => {
    const limiter = ctx.deps.services.rateLimiter;
    if (!limiter.enabled) return auth(ctx, next);
    const ip = byClientIp(ctx);
    const state = await limiter.peek(def, ip);
    if (state.exceeded) {
      ctx.set('Retry-After', String(state.resetSeconds));
      throw new RateLimitedError(state.resetSeconds);
    }
    let passed = false;
    try {
      await auth(ctx, () => {
        passed = true;
        return next();
      });
    } catch (err) {
      if (!passed && err instanceof UnauthenticatedError && counts(ctx)) {
        // The refusal stands whether or not Redis counts it.
        await limiter.consume([{ def, key: ip }]).catch(() => undefined);
      }
      throw err;
    }
  };
}

/**
 * Marks the route as one of the reads Postgres answers while Redis is out (docs/caching.md: the payment
 * status and the embed product; not `/verify`, which may bind a hardware id, a write, and whose outage answer
 * is documented in docs/license.md): during a Redis outage its rate limits are counted in this process
 * (RateLimiter.consumeLocally) instead of refusing the request with 503. Every other route keeps the 503,
 * and no read runs unmetered: an attacker who could take Redis down still meets the same limits per web
 * process (docs/outages.md, "Rate limits during a Redis outage").
 */
export function cachedRead(guards: (deps: Deps) => AppMiddleware[]): (deps: Deps) => AppMiddleware[] {
  const mark: AppMiddleware = async (ctx, next) => {
    ctx.state.cachedRead = true;
    await next();
  };
  return (deps) => [mark, ...guards(deps)];
}
