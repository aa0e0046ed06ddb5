import { withRequestDeadline } from '../../shared/request-deadline';
import type { AppMiddleware } from '../context';

/**
 * Gives every request a time budget (REQUEST_DEADLINE_MS). Services check it before they start work
 * (shared/request-deadline.ts): a request that waited too long on a slow dependency, or whose client has
 * disconnected, answers 503 instead of reserving stock or sending an OTP nobody is waiting for.
 */
export function requestDeadline(budgetMs: number): AppMiddleware {
  return (ctx, next) =>
    withRequestDeadline(
      budgetMs,
      () => ctx.req.socket?.destroyed === true,
      () => next(),
    );
}
