import { requestBudget } from '../../shared/request-deadline';
import type { AppMiddleware } from '../context';

/**
 * Gives every request a time budget (REQUEST_DEADLINE_MS) on `ctx.state.budget`. Routes hand it to the
 * services that start work (shared/request-deadline.ts): a request that waited too long on a slow
 * dependency, or whose client has disconnected, answers 503 instead of reserving stock or sending an OTP
 * nobody is waiting for.
 */
export function requestDeadline(budgetMs: number): AppMiddleware {
  return (ctx, next) => {
    ctx.state.budget = requestBudget(budgetMs, () => ctx.req.socket?.destroyed === true);
    return next();
  };
}
