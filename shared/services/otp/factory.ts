import type { Deps } from '../../deps';
import { rateLimiterFor } from '../rate-limiter';
import { OtpService } from './index';

const byDeps = new WeakMap<Deps, OtpService>();

/** One OtpService per process wiring, consuming limits through the shared Redis rate limiter. */
export function otpServiceFor(deps: Deps): OtpService {
  let service = byDeps.get(deps);
  if (!service) {
    const limiter = rateLimiterFor(deps);
    service = new OtpService({
      config: deps.config,
      knex: deps.knex,
      queues: deps.queues,
      appSecret: deps.appSecret,
      cipher: deps.cipher,
      logger: deps.logger,
      consumeLimit: async (def, key, cost) => {
        await limiter.enforce([{ def, key, cost }]);
      },
    });
    byDeps.set(deps, service);
  }
  return service;
}
