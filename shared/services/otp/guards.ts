import type { RedisClient } from '../../redis';
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../../logger';
import { RateLimitUnavailableError } from '../rate-limiter';

/**
 * What bounds guessing and SMS pumping beyond the spec's per-request limits, kept in Redis under the
 * platform's key prefix (one Cluster slot with the rate-limit buckets, `{rl}`):
 *
 * - failed code verifications per phone number per UTC day, across sessions, resends, stores and both
 *   APIs: at most MAX_FAILURES_PER_PHONE_PER_DAY (the operator contract, docs/operations.md). A resend gives
 *   the new code three attempts, as the spec says, but never gives the phone back its day: without this a
 *   4-digit code could be guessed about 2,600 times a day (a 23% chance).
 * - the OTP messages one store may cause per day (OTP_STORE_DAILY_MESSAGES): a leaked embed key cannot
 *   run up an SMS bill; the first refusal of the day is an operator alert (error log line and the
 *   `matjar_otp_budget_exhausted_stores` gauge).
 *
 * Redis out of reach refuses (503) instead of letting unmetered guesses through, as the rate limits do.
 */
export const MAX_FAILURES_PER_PHONE_PER_DAY = 10;

/** The UTC day of `now` (YYYY-MM-DD) and the seconds left in it (at least 1). */
export function utcDay(now: Date = new Date()): { day: string; secondsLeft: number } {
  const day = now.toISOString().slice(0, 10);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return { day, secondsLeft: Math.max(1, Math.ceil((end - now.getTime()) / 1000)) };
}

/** INCRBY with the key's expiry at the end of its day (plus a margin), in one atomic call. */
const COUNT_LUA = `
local value = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return value
`;

type WithCountCommand = RedisClient & {
  matjarOtpCount(key: string, by: number, ttlSeconds: number): Promise<number>;
};

export interface PhoneFailureSlot {
  /** Failures counted for the phone today, this attempt included. */
  readonly failures: number;
  /** Seconds until the day is over and the phone may try again. */
  readonly retryAfter: number;
}

export interface OtpGuardOptions {
  readonly prefix: string;
  /** OTP messages (first sends and resends) one store may cause per UTC day; 0: no budget. */
  readonly storeDailyMessages: number;
  /** Off only where every rate limit is off (RATE_LIMITS=off, benchmarks); the failure cap never is. */
  readonly budgetEnabled: boolean;
}

export class OtpGuards {
  private readonly redis: WithCountCommand;

  constructor(
    redis: RedisClient,
    private readonly logger: Pick<Logger, 'error'>,
    private readonly opts: OtpGuardOptions,
  ) {
    redis.defineCommand('matjarOtpCount', { numberOfKeys: 1, lua: COUNT_LUA });
    this.redis = redis as WithCountCommand;
  }

  private key(kind: string, ...parts: (string | number)[]): string {
    return `${this.opts.prefix}:{rl}:${kind}:${parts.join(':')}`;
  }

  /**
   * Takes one verification slot of the phone's day before the code is compared, so simultaneous guesses
   * cannot overshoot: `failures` above the cap means refused (even with the right code). A comparison
   * that turns out right, or that never happens, hands the slot back (releaseFailure).
   */
  async takeFailureSlot(e164: string, now: Date = new Date()): Promise<PhoneFailureSlot> {
    const { day, secondsLeft } = utcDay(now);
    const failures = await this.run(() =>
      this.redis.matjarOtpCount(this.key('otp_fail', day, e164), 1, secondsLeft + 3600),
    );
    return { failures, retryAfter: secondsLeft };
  }

  async releaseFailure(e164: string, now: Date = new Date()): Promise<void> {
    const { day, secondsLeft } = utcDay(now);
    await this.run(() => this.redis.matjarOtpCount(this.key('otp_fail', day, e164), -1, secondsLeft + 3600));
  }

  /** Failures counted for the phone today (what a test or an operator reads). */
  async failuresToday(e164: string, now: Date = new Date()): Promise<number> {
    const value = await this.run(() => this.redis.get(this.key('otp_fail', utcDay(now).day, e164)));
    return Number(value ?? 0);
  }

  /**
   * Spends one message of the store's day; false when the budget is used up. The first refusal of a
   * store's day is logged at error level and the store joins the day's exhausted set (the gauge).
   */
  async spendMessage(storeId: number, now: Date = new Date()): Promise<boolean> {
    if (!this.opts.budgetEnabled || this.opts.storeDailyMessages <= 0) return true;
    const { day, secondsLeft } = utcDay(now);
    const spent = await this.run(() =>
      this.redis.matjarOtpCount(this.key('otp_budget', day, storeId), 1, secondsLeft + 3600),
    );
    if (spent <= this.opts.storeDailyMessages) return true;
    if (spent === this.opts.storeDailyMessages + 1) {
      this.logger.error(
        { storeId, budget: this.opts.storeDailyMessages, day },
        'OTP message budget of a store exhausted: further codes refused until the day is over (possible SMS pumping)',
      );
      await this.run(() =>
        this.redis
          .multi()
          .sadd(this.key('otp_budget_exhausted', day), String(storeId))
          .expire(this.key('otp_budget_exhausted', day), secondsLeft + 3600)
          .exec(),
      );
    }
    return false;
  }

  /** How many stores have used up today's message budget (the operator alert's gauge). */
  async exhaustedStoresToday(now: Date = new Date()): Promise<number> {
    return this.run(() => this.redis.scard(this.key('otp_budget_exhausted', utcDay(now).day)));
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.redis.status !== 'ready') throw new RateLimitUnavailableError();
    try {
      return await command();
    } catch {
      throw new RateLimitUnavailableError();
    }
  }
}

/**
 * `matjar_otp_budget_exhausted_stores`: stores whose OTP message budget ran out today, read from Redis at
 * each scrape. Above 0 is the operator's alert (with the error log line naming the store).
 */
export function registerOtpMetrics(
  registry: Registry,
  guards: OtpGuards,
  logger: Pick<Logger, 'warn'>,
): void {
  new Gauge({
    name: 'matjar_otp_budget_exhausted_stores',
    help: 'Stores whose daily OTP message budget (OTP_STORE_DAILY_MESSAGES) is used up today (UTC)',
    registers: [registry],
    async collect() {
      try {
        this.set(await guards.exhaustedStoresToday());
      } catch (err) {
        logger.warn({ error: (err as Error).message }, 'could not read the OTP budget gauge');
      }
    },
  });
}
