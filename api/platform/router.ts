import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import type { AppContext } from '../context';

async function healthz(ctx: AppContext): Promise<void> {
  ctx.body = { status: 'ok' };
}

/** Readiness: this instance can reach Postgres and Redis. */
async function readyz(ctx: AppContext): Promise<void> {
  const { knex, redis } = ctx.deps;
  const checks = await Promise.allSettled([knex.raw('select 1'), redis.ping()]);
  const [postgres, redisCheck] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
  const ready = postgres === 'ok' && redisCheck === 'ok';
  ctx.status = ready ? 200 : 503;
  ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { postgres, redis: redisCheck } };
}

export function platformRouter(_deps: Deps): Router {
  const router = new Router();
  router.get('/healthz', healthz);
  router.get('/readyz', readyz);
  return router;
}
