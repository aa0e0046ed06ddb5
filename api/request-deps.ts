import type { Deps } from '../shared/deps';
import type { RequestBudget } from '../shared/request-deadline';
import type { AppContext } from './context';

/** The process's deps with what belongs to this one request: its time budget and, for a buyer, its address. */
export type RequestDeps = Deps & { budget?: RequestBudget; clientIp?: string };

/**
 * What a handler hands to a service that starts work: the one deps object of the process (createDeps),
 * with the request's budget (nothing is reserved once it is spent) and the buyer's client address (left
 * out for a merchant's request: `buyer: false`).
 */
export function requestDeps(ctx: AppContext, opts: { buyer?: boolean } = {}): RequestDeps {
  const budget = ctx.state.budget;
  const clientIp = opts.buyer === false ? undefined : ctx.ip;
  return { ...ctx.deps, ...(budget ? { budget } : {}), ...(clientIp ? { clientIp } : {}) };
}
