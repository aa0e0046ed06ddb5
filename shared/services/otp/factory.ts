import type { Deps } from '../../deps';
import type { RateLimiter } from '../rate-limiter';
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

/** The process's OtpService (built once by createServices), consuming limits through its rate limiter. */
export function createOtpService(
  deps: Pick<
    Deps,
    'config' | 'knex' | 'queues' | 'appSecret' | 'appSecretPrevious' | 'cipher' | 'logger' | 'redis'
  >,
  limiter: RateLimiter,
): OtpService {
  return new OtpService({
    config: deps.config,
    knex: deps.knex,
    queues: deps.queues,
    appSecret: deps.appSecret,
    appSecretPrevious: deps.appSecretPrevious,
    cipher: deps.cipher,
    logger: deps.logger,
    consumeLimit: async (def, key, cost) => {
      await limiter.enforce([{ def, key, cost }]);
    },
    consumeLimits: async (uses) => {
      await limiter.enforce(uses);
    },
    guards: otpGuardsOf(deps),
  });
}
