import { jsonResponse, schemaRef } from '../openapi/components';
import { defineRoute } from '../http/route';
import { registryFor } from '../metrics/http-metrics';
import { NotFoundError } from '../../shared/errors';

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
      const { knex, redis } = ctx.deps;
      const checks = await Promise.allSettled([knex.raw('select 1'), redis.ping()]);
      const [postgres, redisCheck] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
      const ready = postgres === 'ok' && redisCheck === 'ok';
      ctx.status = ready ? 200 : 503;
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
      'delayed and failed job counts (the figure worker autoscaling reads).',
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
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
