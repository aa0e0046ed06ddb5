import type { Logger } from '../../shared/logger';
import type { AppMiddleware } from '../context';
import { routeLabel } from '../metrics/http-metrics';

/**
 * One log line per request, with its id; never headers or bodies (they may hold secrets). A matched
 * request is logged by its route pattern, not its path: paths carry secrets such as the checkout URL
 * (`/pay/:checkoutUrl`, `/api/embed/payment/status/:checkoutUrl`).
 */
export function accessLog(logger: Logger): AppMiddleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          route: routeLabel(ctx) === 'unmatched' ? ctx.path : routeLabel(ctx),
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    }
  };
}
