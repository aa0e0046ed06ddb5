import { Counter, Histogram, Registry } from 'prom-client';
import type { Deps } from '../../shared/deps';
import {
  createMetricsRegistry,
  registerBreakerMetrics,
  registerFivemMetrics,
  registerQueueMetrics,
} from '../../shared/metrics';
import { otpGuardsOf } from '../../shared/services/otp/factory';
import { registerOtpMetrics } from '../../shared/services/otp/guards';
import { registerSubscriptionMetrics } from '../../shared/services/subscriptions/metrics';
import { registerFraudMetrics } from '../../shared/services/fraud/metrics';
import { countFivemCommands } from '../../shared/services/fivem';
import type { AppContext, AppMiddleware } from '../context';
import { accessLog } from '../middleware/access-log';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What @koa/router leaves on the context about the layers that matched the request path. */
interface RouterMatch {
  matched?: ReadonlyArray<{ path: string | RegExp; methods: readonly string[] }>;
}

/**
 * The route pattern that answered (e.g. `/api/embed/product/:productId`), never the raw path: ids in
 * paths would make one time series per id. The first layer matching path and method is the one that ran;
 * later entries come from routers nested inside it (the queue dashboard's own routes).
 */
export function routeLabel(ctx: AppContext): string {
  const layers = (ctx as AppContext & RouterMatch).matched ?? [];
  const layer = layers.find((l) => l.methods.includes(ctx.method));
  return layer ? String(layer.path) : 'unmatched';
}

const registries = new WeakMap<object, Registry>();

/** The registry `httpMetrics` created for this Koa app (what GET /metrics exposes). */
export function registryFor(app: object): Registry | undefined {
  return registries.get(app);
}

/**
 * Counts every request and its latency by method, route and status, and writes its access log line: one
 * timer and one layer for both. Mounted outside the error handler, so the status is the one the client
 * received.
 */
export function httpMetrics(app: object, deps: Deps): AppMiddleware {
  const registry = createMetricsRegistry();
  registerQueueMetrics(registry, deps.queues, deps.logger);
  registerFivemMetrics(registry, () => countFivemCommands(deps.knex), deps.logger);
  registerSubscriptionMetrics(registry, deps.knex, deps.logger);
  registerFraudMetrics(registry, deps.knex, deps.logger);
  registerBreakerMetrics(registry, deps.breakers);
  registerOtpMetrics(registry, otpGuardsOf(deps), deps.logger);
  const labelNames = ['method', 'route', 'status'] as const;
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method, route pattern and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // The request count is the histogram's own count, copied at each scrape: a request pays for one
  // labelled observation, not two (the counter cost about 2 us a request).
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers: [registry],
    async collect() {
      const { values } = await duration.get();
      this.reset();
      for (const sample of values) {
        if (sample.metricName === 'http_request_duration_seconds_count') {
          this.inc(sample.labels as Record<(typeof labelNames)[number], string>, sample.value);
        }
      }
    },
  });
  registries.set(app, registry);

  const log = accessLog(deps.logger, deps.config.accessLog);

  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    let failed = false;
    try {
      await next();
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(ctx);
      const labels = {
        method: KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        route,
        status: String(failed ? 500 : ctx.status),
      };
      duration.observe(labels, seconds);
      log?.(ctx, route, seconds, failed);
    }
  };
}
