import { safeEqual } from '../../shared/crypto';
import type { Deps } from '../../shared/deps';
import { NotFoundError, UnauthenticatedError } from '../../shared/errors';
import { bearerToken } from '../../shared/services/tokens';
import type { AppMiddleware } from '../context';

/**
 * Who may scrape /metrics. With METRICS_TOKEN set, only a request carrying it as a
 * bearer token (compared in constant time). Without it, anyone outside production (a developer's machine),
 * and nobody in production, where route names, traffic and queue depths are not for the public: /metrics
 * is then a 404.
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
