import type { Logger } from '../../shared/logger';
import type { AppContext } from '../context';

export interface AccessLogSampling {
  /** Success lines (status below 400) written in full each second; 0 samples from the first. */
  readonly fullPerSecond: number;
  /** Beyond that, one success line in this many is written (1: every line). */
  readonly sampleOneIn: number;
}

/** Every line, as before sampling existed. */
export const NO_SAMPLING: AccessLogSampling = { fullPerSecond: Infinity, sampleOneIn: 1 };

/**
 * One log line per request, with its id; never headers or bodies (they may hold secrets). A matched
 * request is logged by its route pattern, not its path: paths carry secrets such as the checkout URL
 * (`/pay/:checkoutUrl`, `/api/embed/payment/status/:checkoutUrl`).
 *
 * At high rates the success lines are sampled (docs/performance.md "Access log"): within each second the
 * first `fullPerSecond` lines with a status below 400 are written, then one in `sampleOneIn`, carrying
 * `sampled: <n>` (the line stands for n requests). Errors (4xx, 5xx, and a request that threw) are
 * always written. Request counts come from the metrics (`http_requests_total`), which see every request.
 *
 * Called by the request telemetry (api/metrics/http-metrics.ts), which times each request once for the
 * latency histogram and this line. Null when the log level leaves `info` out: nothing is built then.
 */
export function accessLog(
  logger: Logger,
  sampling: AccessLogSampling = NO_SAMPLING,
  now: () => number = Date.now,
): ((ctx: AppContext, route: string, seconds: number, failed?: boolean) => void) | null {
  if (!logger.isLevelEnabled('info')) return null;
  // The line's fields are fixed and hold no secret by name, so field redaction (3.1 of the 5.5 us a line
  // cost) is left out here; the scrubbing of secrets in paths still runs on every line (shared/logger.ts).
  const lines = logger.child({}, { redact: { paths: [] } });
  const oneIn = Math.max(1, Math.floor(sampling.sampleOneIn));
  let second = 0;
  let successes = 0;
  return (ctx, route, seconds, failed = false) => {
    let sampled: number | undefined;
    if (!failed && ctx.status < 400 && oneIn > 1) {
      const current = Math.floor(now() / 1000);
      if (current !== second) {
        second = current;
        successes = 0;
      }
      successes += 1;
      if (successes > sampling.fullPerSecond) {
        if ((successes - sampling.fullPerSecond - 1) % oneIn !== 0) return;
        sampled = oneIn;
      }
    }
    lines.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route: route === 'unmatched' ? ctx.path : route,
        status: ctx.status,
        ms: Math.round(seconds * 10_000) / 10,
        ...(sampled === undefined ? {} : { sampled }),
      },
      'request',
    );
  };
}
