import Router from '@koa/router';
import { safeEqual } from '../../shared/crypto';
import type { Deps } from '../../shared/deps';
import { NotFoundError, UnauthenticatedError } from '../../shared/errors';
import { bearerToken } from '../../shared/services/tokens';
import type { AppContext, AppMiddleware } from '../context';
import { registryFor } from './http-metrics';

/** Prometheus scrape endpoint: HTTP figures, process figures and per-queue job counts. */
async function scrape(ctx: AppContext): Promise<void> {
  const registry = registryFor(ctx.app);
  if (!registry) throw new NotFoundError('Metrics are not enabled on this app');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = registry.contentType;
  ctx.body = await registry.metrics();
}

/**
 * Who may scrape. With METRICS_TOKEN set, only a request carrying it as a bearer token (compared in
 * constant time). Without it, anyone outside production (a developer's machine), and nobody in production,
 * where route names, traffic and queue depths are not for the public: /metrics is then a 404.
 */
export function metricsAccess(deps: Deps): AppMiddleware {
  const { metricsToken, nodeEnv } = deps.config;
  return async (ctx, next) => {
    if (metricsToken) {
      const given = bearerToken(ctx.get('Authorization'));
      if (!given || !safeEqual(given, metricsToken)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new UnauthenticatedError('A valid METRICS_TOKEN bearer token is required');
      }
    } else if (nodeEnv === 'production') {
      throw new NotFoundError('Not found');
    }
    await next();
  };
}

export function metricsRouter(deps: Deps): Router {
  const router = new Router();
  router.get('/metrics', metricsAccess(deps), scrape);
  return router;
}
