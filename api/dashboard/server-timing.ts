import type { Route } from '../http/route';
import type { AppMiddleware } from '../context';

/**
 * `Server-Timing: app;dur=<ms>` on every dashboard answer: the time from the page's route receiving the
 * request (before its sign-in guard) to its body being ready, which a browser's devtools show beside the
 * network time. The bench reads it to measure the pages' server time (docs/performance.md, "How the bench
 * measures"). An answer that failed is written by the error handler and carries none.
 */
export function serverTiming(): AppMiddleware {
  return async (ctx, next) => {
    const start = process.hrtime.bigint();
    await next();
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    ctx.set('Server-Timing', `app;dur=${ms.toFixed(1)}`);
  };
}

/** The route with serverTiming() first in its chain. */
export const timed = (route: Route): Route => ({
  ...route,
  guards: (deps) => [serverTiming(), ...(route.guards?.(deps) ?? [])],
});
