import type { Deps } from '../../deps';
import type { RequestBudget } from '../../request-deadline';
import type { CheckoutDeps } from './index';

const byDeps = new WeakMap<Deps, CheckoutDeps>();

/**
 * The checkout service's dependencies for one process wiring, with the deployment's storage driver; with
 * the HTTP request's budget when a route passes it (nothing is reserved once it is spent).
 */
export function checkoutDepsOf(deps: Deps, budget?: RequestBudget, clientIp?: string): CheckoutDeps {
  let wired = byDeps.get(deps);
  if (!wired) {
    wired = {
      knex: deps.knex,
      queues: deps.queues,
      config: deps.config,
      storage: deps.storage,
      logger: deps.logger,
    };
    byDeps.set(deps, wired);
  }
  if (!budget && !clientIp) return wired;
  return { ...wired, ...(budget ? { budget } : {}), ...(clientIp ? { clientIp } : {}) };
}
