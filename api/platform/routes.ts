import { jsonResponse, schemaRef } from '../openapi/components';
import { defineRoute } from '../http/route';
import { metricsAccess } from '../metrics/access';
import { registryFor } from '../metrics/http-metrics';
import { RETRY_AFTER_SECONDS } from '../../shared/dependency-errors';
import { NotFoundError } from '../../shared/errors';
import { pingDatabase } from '../../shared/services/health';

/** Settles with the check, or rejects once `ms` have passed. */
function bounded(check: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('readiness check timed out')), ms);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

/** Operational routes of every instance: liveness, readiness and the Prometheus scrape endpoint. */
export const platformRoutes = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    interface: 'platform',
    operationId: 'getHealthz',
    summary: 'Liveness',
    description: 'Answers as soon as the process serves HTTP; checks no dependency.',
    responses: {
      200: jsonResponse(
        'The process is up.',
        { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
        { status: 'ok' },
      ),
    },
    handler: () => ({ status: 'ok' }),
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    interface: 'platform',
    operationId: 'getReadyz',
    summary: 'Readiness',
    description:
      'Checks that this instance reaches Postgres and Redis; a load balancer sends traffic only on 200.',
    responses: {
      200: jsonResponse('Both dependencies answer.', schemaRef('Readiness'), {
        status: 'ok',
        checks: { postgres: 'ok', redis: 'ok' },
      }),
      503: jsonResponse('A dependency is unreachable.', schemaRef('Readiness'), {
        status: 'unavailable',
        checks: { postgres: 'ok', redis: 'unreachable' },
      }),
    },
    handler: async (ctx) => {
      const { knex, redis, config } = ctx.deps;
      // Each check within DEPENDENCY_TIMEOUT_MS: a frozen dependency must not hold the probe.
      const ms = config.timeouts.dependencyMs;
      const checks = await Promise.allSettled([bounded(pingDatabase(knex), ms), bounded(redis.ping(), ms)]);
      const [postgres, redisCheck] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
      const ready = postgres === 'ok' && redisCheck === 'ok';
      ctx.status = ready ? 200 : 503;
      if (!ready) ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { postgres, redis: redisCheck } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/metrics',
    interface: 'platform',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP request counts and latency histograms, process figures, and per queue the waiting, active, ' +
      'delayed and failed job counts (the figure worker autoscaling reads). With `METRICS_TOKEN` set it ' +
      'needs that token as a bearer token; without it, it is open outside production and absent (404) in ' +
      'production.',
    guards: (deps) => [metricsAccess(deps)],
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      401: 'PlatformError',
      404: 'PlatformError',
    },
    handler: async (ctx) => {
      const registry = registryFor(ctx.app);
      if (!registry) throw new NotFoundError('Metrics are not enabled on this app');
      ctx.set('Cache-Control', 'no-store');
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    },
  }),
];
