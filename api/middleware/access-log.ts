import type { Logger } from '../../shared/logger';
import type { AppMiddleware } from '../context';

/** One log line per request, with its id; never headers or bodies (they may hold secrets). */
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
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    }
  };
}
