import type { Logger } from '../../shared/logger';
import type { AppContext } from '../context';

/**
 * One log line per request, with its id; never headers or bodies (they may hold secrets). A matched
 * request is logged by its route pattern, not its path: paths carry secrets such as the checkout URL
 * (`/pay/:checkoutUrl`, `/api/embed/payment/status/:checkoutUrl`).
 *
 * Called by the request telemetry (api/metrics/http-metrics.ts), which times each request once for the
 * latency histogram and this line. Null when the log level leaves `info` out: nothing is built then.
 */
export function accessLog(
  logger: Logger,
): ((ctx: AppContext, route: string, seconds: number) => void) | null {
  if (!logger.isLevelEnabled('info')) return null;
  // The line's fields are fixed and hold no secret by name, so field redaction (3.1 of the 5.5 us a line
  // cost) is left out here; the scrubbing of secrets in paths still runs on every line (shared/logger.ts).
  const lines = logger.child({}, { redact: { paths: [] } });
  return (ctx, route, seconds) => {
    lines.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route: route === 'unmatched' ? ctx.path : route,
        status: ctx.status,
        ms: Math.round(seconds * 10_000) / 10,
      },
      'request',
    );
  };
}
