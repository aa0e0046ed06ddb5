import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import type { AppContext } from '../context';
import { registryFor } from './http-metrics';

/** Prometheus scrape endpoint: HTTP figures, process figures and per-queue job counts. */
async function scrape(ctx: AppContext): Promise<void> {
  const registry = registryFor(ctx.app);
  if (!registry) throw new NotFoundError('Metrics are not enabled on this app');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = registry.contentType;
  ctx.body = await registry.metrics();
}

export function metricsRouter(_deps: Deps): Router {
  const router = new Router();
  router.get('/metrics', scrape);
  return router;
}
