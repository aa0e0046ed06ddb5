import type { Deps } from '../../deps';
import type { CheckoutDeps } from './index';

const byDeps = new WeakMap<Deps, CheckoutDeps>();

/** The checkout service's dependencies for one process wiring, with the deployment's storage driver. */
export function checkoutDepsOf(deps: Deps): CheckoutDeps {
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
  return wired;
}
