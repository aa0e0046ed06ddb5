import type { Deps } from '../../deps';
import { rateLimiterFor } from '../rate-limiter';
import { OtpGuards } from './guards';
import { OtpService } from './index';

/** The OTP guards of one process wiring (the Redis counters of failures and message budgets). */
export function otpGuardsOf(deps: Pick<Deps, 'config' | 'redis' | 'logger'>): OtpGuards {
  return new OtpGuards(deps.redis, deps.logger, {
    prefix: deps.config.queuePrefix,
    storeDailyMessages: deps.config.otpStoreDailyMessages,
    budgetEnabled: deps.config.rateLimitsEnabled,
  });
}

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
      guards: otpGuardsOf(deps),
    });
    byDeps.set(deps, service);
  }
  return service;
}
