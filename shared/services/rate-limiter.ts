import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config';
import { DomainError, RateLimitedError } from '../errors';
import type { LimitDefinition } from '../rate-limits';

/** One limit to consume for one request: which limit, whose bucket, how many points. */
export interface LimitUse {
  readonly def: LimitDefinition;
  readonly key: string;
  readonly cost?: number;
}

/** Where one bucket stands after a consume. */
export interface LimitState {
  readonly def: LimitDefinition;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the bucket's window ends, rounded up, at least 1. */
  readonly resetSeconds: number;
  readonly exceeded: boolean;
}

export class RateLimitUnavailableError extends DomainError {
  constructor() {
    super('UNAVAILABLE', 'Service temporarily unavailable. Please try again later.');
  }
}

const secondsUntil = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * The spec's rate limits on Redis. Each bucket is one Redis key counted by rate-limiter-flexible's Lua
 * script (SET NX + INCRBY in one call), so concurrent requests on many web processes never over-admit.
 * A denied request still counts, as the library does: hammering a limit keeps it shut.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(
    private readonly redis: Redis,
    private readonly opts: {
      readonly prefix: string;
      readonly windowScale: number;
      readonly enabled: boolean;
    },
  ) {}

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** The window actually used: RATE_LIMIT_WINDOW_SCALE lets tests wait out a "minute" in a second. */
  windowSeconds(def: LimitDefinition): number {
    return Math.max(1, Math.ceil(def.durationSeconds * this.opts.windowScale));
  }

  /**
   * Consumes every use at once. Exhausted buckets come back with `exceeded`; only a Redis failure throws
   * (RateLimitUnavailableError), because letting traffic through unmetered would defeat the limits.
   */
  async consume(uses: readonly LimitUse[]): Promise<LimitState[]> {
    const settled = await Promise.allSettled(
      uses.map((use) => this.limiterFor(use.def).consume(use.key, use.cost ?? 1)),
    );
    return settled.map((outcome, index) => {
      const def = uses[index].def;
      const res: unknown = outcome.status === 'fulfilled' ? outcome.value : outcome.reason;
      if (!(res instanceof RateLimiterRes)) throw new RateLimitUnavailableError();
      return {
        def,
        limit: def.points,
        remaining: res.remainingPoints,
        resetSeconds: secondsUntil(res.msBeforeNext),
        exceeded: outcome.status === 'rejected',
      };
    });
  }

  /** Consumes, and throws RateLimitedError when any bucket is exhausted. Returns the state to report. */
  async enforce(uses: readonly LimitUse[]): Promise<LimitState | null> {
    if (!this.enabled || uses.length === 0) return null;
    const top = mostRestrictive(await this.consume(uses));
    if (top.exceeded) throw new RateLimitedError(top.resetSeconds);
    return top;
  }

  /** Empties one bucket (e.g. after a successful verification). */
  async reset(def: LimitDefinition, key: string): Promise<void> {
    try {
      await this.limiterFor(def).delete(key);
    } catch {
      throw new RateLimitUnavailableError();
    }
  }

  private limiterFor(def: LimitDefinition): RateLimiterRedis {
    const id = `${def.name}|${def.points}|${def.durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${this.opts.prefix}:rl:${def.name}`,
        points: def.points,
        duration: this.windowSeconds(def),
        // Fail at once while Redis reconnects instead of letting requests queue behind it.
        rejectIfRedisNotReady: true,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}

/**
 * The state a client should see: of the exhausted buckets the one that stays shut longest, otherwise the
 * one with the fewest points left.
 */
export function mostRestrictive(states: readonly LimitState[]): LimitState {
  if (states.length === 0) throw new Error('mostRestrictive needs at least one state');
  const exceeded = states.filter((s) => s.exceeded);
  if (exceeded.length > 0) return exceeded.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
  return states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
}

export interface RateLimiterDeps {
  readonly config: Config;
  readonly redis: Redis;
}

const byDeps = new WeakMap<RateLimiterDeps, RateLimiter>();

/** One RateLimiter (and so one set of limiter instances) per process wiring, built on first use. */
export function rateLimiterFor(deps: RateLimiterDeps): RateLimiter {
  let limiter = byDeps.get(deps);
  if (!limiter) {
    limiter = new RateLimiter(deps.redis, {
      prefix: deps.config.queuePrefix,
      windowScale: deps.config.rateLimitWindowScale,
      enabled: deps.config.rateLimitsEnabled,
    });
    byDeps.set(deps, limiter);
  }
  return limiter;
}
