import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import type { AppContext } from '../context';

async function healthz(ctx: AppContext): Promise<void> {
  ctx.body = { status: 'ok' };
}

/** Settles with the check, or rejects once `ms` have passed: a frozen dependency must not hold /readyz. */
function bounded(check: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('readiness check timed out')), ms);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

/** Readiness: this instance can reach Postgres and Redis, each within DEPENDENCY_TIMEOUT_MS. */
async function readyz(ctx: AppContext): Promise<void> {
  const { knex, redis, config } = ctx.deps;
  const ms = config.timeouts.dependencyMs;
  const checks = await Promise.allSettled([bounded(knex.raw('select 1'), ms), bounded(redis.ping(), ms)]);
  const [postgres, redisCheck] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
  const ready = postgres === 'ok' && redisCheck === 'ok';
  ctx.status = ready ? 200 : 503;
  if (!ready) ctx.set('Retry-After', '5');
  ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { postgres, redis: redisCheck } };
}

export function platformRouter(_deps: Deps): Router {
  const router = new Router();
  router.get('/healthz', healthz);
  router.get('/readyz', readyz);
  return router;
}
