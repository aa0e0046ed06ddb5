import { ForbiddenError } from '../shared/errors';
import { LIMITS } from '../shared/rate-limits';
import type { Deps } from '../shared/deps';
import type { AppContext, AppMiddleware } from './context';
import { auditOtherWrite } from './merchant/audit-writes';
import { embedKey } from './middleware/embed-key';
import { fivemSecret, fivemServerOf } from './middleware/fivem-secret';
import { merchantAuth } from './middleware/merchant-auth';
import { originCheck } from './middleware/origin-check';
import { byClientIp, failedAuthLimit, globally, rateLimit } from './middleware/rate-limit';
import { storefrontStore } from './middleware/storefront-store';

/**
 * The guard chain of each interface, spread into a router before its handlers:
 * `router.post('/api/embed/x', ...embedGuards(deps), validate(...), handler)`.
 * Limits come before anything that touches Postgres, so abusive traffic is cut at the cheapest point.
 * `deps` is taken for symmetry with the routers; the limiters themselves are built once per Deps.
 */

export function embedGuards(_deps: Deps): AppMiddleware[] {
  return [
    rateLimit([
      { def: LIMITS.embedPerIpMinute, key: byClientIp },
      { def: LIMITS.embedPerIpHour, key: byClientIp },
      { def: LIMITS.embedPerIpDay, key: byClientIp },
      { def: LIMITS.embedGlobalMinute, key: globally },
    ]),
    embedKey(),
    originCheck(),
  ];
}

/** GET /api/embed/payment/status/{checkoutUrl}: public, no embed key; polled every 2 to 3 seconds. */
export function paymentStatusGuards(_deps: Deps): AppMiddleware[] {
  return [rateLimit([{ def: LIMITS.paymentStatusPerIp, key: byClientIp }])];
}

export function storefrontGuards(_deps: Deps): AppMiddleware[] {
  return [rateLimit([{ def: LIMITS.storefrontPerIp, key: byClientIp }]), storefrontStore()];
}

/** Analytics counts events, not requests: the collect routes add analyticsEventsLimit() with their count. */
export function analyticsGuards(_deps: Deps): AppMiddleware[] {
  return [storefrontStore()];
}

/** Per-IP analytics limit where every event of a batch counts; `events` says how many this request carries. */
export function analyticsEventsLimit(events: (ctx: AppContext) => number): AppMiddleware {
  return rateLimit([{ def: LIMITS.analyticsEventsPerIp, key: byClientIp, cost: events }]);
}

/**
 * After a merchant request that may have written (any method but GET/HEAD/OPTIONS) and did not fail: the
 * read-your-writes note (the merchant's next read of the store goes to the primary) and the audit line.
 * No cache is invalidated here: each writer bumps the counters of what it changed through its unit of
 * work, after its commit (docs/caching.md).
 */
function noteMerchantWrites(): AppMiddleware {
  return async (ctx, next) => {
    await next();
    const store = ctx.state.store;
    if (store && !['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) {
      // Before the answer leaves: the merchant's next read of the store sees this write (read your writes).
      await ctx.deps.readKnex.noteWrite(store.id);
      await auditOtherWrite(ctx, ctx.deps.logger);
    }
  };
}

export const READ_SCOPE_MESSAGE = 'This token can only read: writes need a token with the write scope.';

/** A `read` token may use GET (and HEAD) only; every other method is a 403, before anything is written. */
function writeScope(): AppMiddleware {
  return async (ctx, next) => {
    const scope = ctx.state.merchantToken?.scope ?? 'write';
    if (scope !== 'write' && !['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) {
      throw new ForbiddenError(READ_SCOPE_MESSAGE);
    }
    await next();
  };
}

export function merchantGuards(_deps: Deps): AppMiddleware[] {
  return [
    failedAuthLimit(LIMITS.credentialFailuresPerIp, merchantAuth()),
    noteMerchantWrites(),
    rateLimit([
      {
        def: LIMITS.merchantPerToken,
        key: (ctx) => (ctx.state.merchantToken ? String(ctx.state.merchantToken.id) : null),
      },
    ]),
    writeScope(),
  ];
}

export function licenseGuards(_deps: Deps): AppMiddleware[] {
  return [rateLimit([{ def: LIMITS.licensePerIp, key: byClientIp }])];
}

/**
 * The FiveM API: a per-IP limit before the secret is looked up, then the game server's secret, then a
 * limit per game server.
 */
export function fivemGuards(_deps: Deps): AppMiddleware[] {
  return [
    rateLimit([{ def: LIMITS.fivemPerIp, key: byClientIp }]),
    failedAuthLimit(LIMITS.credentialFailuresPerIp, fivemSecret()),
    rateLimit([{ def: LIMITS.fivemPerServer, key: (ctx) => String(fivemServerOf(ctx).id) }]),
  ];
}
