import type { RedisClient } from '../redis';
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
 * Counts every bucket of a request in one atomic call: KEYS are the buckets, ARGV holds a cost and a
 * window in milliseconds per key. Fixed windows: INCRBY, and the expiry is set only when the key has none
 * (it is new), so the window runs from the bucket's first point. Replies consumed count and PTTL per key,
 * flat. The over-limit decision stays in the caller; a denied request still counts, as it did with
 * rate-limiter-flexible, so hammering a limit keeps it shut.
 */
const CONSUME_LUA = `
local reply = {}
for i, key in ipairs(KEYS) do
  local cost = tonumber(ARGV[2 * i - 1])
  local window = tonumber(ARGV[2 * i])
  local consumed = redis.call('INCRBY', key, cost)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, window)
    ttl = window
  end
  reply[2 * i - 1] = consumed
  reply[2 * i] = ttl
end
return reply
`;

/** The connection's command, added by defineCommand: EVALSHA, falling back to EVAL after a NOSCRIPT. */
type WithConsumeCommand = RedisClient & {
  matjarRateLimitConsume(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
};

/**
 * The spec's rate limits on Redis. Each bucket is one Redis key; all the buckets of a request are counted
 * by one Lua script in one round trip, atomically, so concurrent requests on many web processes never
 * over-admit.
 */
/** Buckets the in-process fallback keeps at most (oldest out first): a bound on its memory. */
export const LOCAL_BUCKETS_MAX = 20_000;

/**
 * Fixed-window buckets in this process's memory: the fallback of the reads Postgres answers without Redis
 * (docs/outages.md, "Rate limits during a Redis outage"). Same limits and windows as in Redis, counted per
 * process: N web processes let through at most N times a limit.
 */
class LocalBuckets {
  private readonly buckets = new Map<string, { consumed: number; endsAt: number }>();

  consume(bucket: string, cost: number, windowMs: number, now: number): { consumed: number; ttlMs: number } {
    let entry = this.buckets.get(bucket);
    if (!entry || entry.endsAt <= now) {
      this.buckets.delete(bucket);
      if (this.buckets.size >= LOCAL_BUCKETS_MAX) this.evict();
      entry = { consumed: 0, endsAt: now + windowMs };
      this.buckets.set(bucket, entry);
    }
    entry.consumed += cost;
    return { consumed: entry.consumed, ttlMs: entry.endsAt - now };
  }

  /**
   * Makes room by dropping the oldest bucket (a Map keeps insertion order, and a renewed window is
   * inserted again): O(1) per new bucket, however many clients an attack brings. Expired ones are
   * replaced when their key comes back.
   */
  private evict(): void {
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }
}

export class RateLimiter {
  private readonly redis: WithConsumeCommand;
  private readonly local = new LocalBuckets();

  constructor(
    redis: RedisClient,
    private readonly opts: {
      readonly prefix: string;
      readonly windowScale: number;
      readonly enabled: boolean;
    },
  ) {
    // Defining it again on a connection another limiter shares only replaces it with the same script.
    redis.defineCommand('matjarRateLimitConsume', { lua: CONSUME_LUA });
    this.redis = redis as WithConsumeCommand;
  }

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** The window actually used: RATE_LIMIT_WINDOW_SCALE lets tests wait out a "minute" in a second. */
  windowSeconds(def: LimitDefinition): number {
    return Math.max(1, Math.ceil(def.durationSeconds * this.opts.windowScale));
  }

  /**
   * The bucket's Redis key. The hash tag `{rl}` puts every bucket in one Redis Cluster slot, which the
   * multi-key script needs (Cluster hashes only the first `{...}` of a key, so braces in a client's bucket
   * key cannot move it); the QUEUE_PREFIX stays first, as for every key of the platform
   * (docs/operations.md). Under rate-limiter-flexible the keys were `<prefix>:rl:<name>:<key>`.
   */
  keyOf(def: LimitDefinition, key: string): string {
    return `${this.opts.prefix}:{rl}:${def.name}:${key}`;
  }

  /**
   * Consumes every use at once, in one Redis command. Exhausted buckets come back with `exceeded`; only a
   * Redis failure throws (RateLimitUnavailableError), because letting traffic through unmetered would
   * defeat the limits.
   */
  async consume(uses: readonly LimitUse[]): Promise<LimitState[]> {
    if (uses.length === 0) return [];
    const keys: string[] = [];
    const args: number[] = [];
    for (const use of uses) {
      const cost = use.cost ?? 1;
      // A programming error, not an outage: the middleware only passes whole positive costs.
      if (!Number.isInteger(cost) || cost < 0)
        throw new Error(`rate limit cost must be a whole number: ${cost}`);
      keys.push(this.keyOf(use.def, use.key));
      args.push(cost, this.windowSeconds(use.def) * 1000);
    }
    const reply = await this.run(() => this.redis.matjarRateLimitConsume(keys.length, ...keys, ...args));
    return uses.map((use, index) => {
      const consumed = Number(reply[2 * index]);
      const ttl = Number(reply[2 * index + 1]);
      return {
        def: use.def,
        limit: use.def.points,
        remaining: Math.max(use.def.points - consumed, 0),
        resetSeconds: secondsUntil(ttl),
        exceeded: consumed > use.def.points,
      };
    });
  }

  /**
   * Consumes every use in this process's own buckets, without Redis: only for the reads that Postgres
   * answers while Redis is out (the rateLimit middleware's `cachedRead` fallback; docs/outages.md).
   */
  consumeLocally(uses: readonly LimitUse[], now = Date.now()): LimitState[] {
    return uses.map((use) => {
      const cost = use.cost ?? 1;
      const windowMs = this.windowSeconds(use.def) * 1000;
      const { consumed, ttlMs } = this.local.consume(this.keyOf(use.def, use.key), cost, windowMs, now);
      return {
        def: use.def,
        limit: use.def.points,
        remaining: Math.max(use.def.points - consumed, 0),
        resetSeconds: secondsUntil(ttlMs),
        exceeded: consumed > use.def.points,
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

  /**
   * Where a bucket stands without counting anything (no key is written): for limits that count only some
   * outcomes (failed credentials), checked before the request is let through.
   */
  async peek(def: LimitDefinition, key: string): Promise<LimitState> {
    const bucket = this.keyOf(def, key);
    const [consumed, ttl] = await this.run(async () => {
      const replies = await this.redis.multi().get(bucket).pttl(bucket).exec();
      if (!replies || replies.some(([err]) => err)) throw new Error('rate limit peek failed');
      return [Number(replies[0]![1] ?? 0), Number(replies[1]![1])];
    });
    return {
      def,
      limit: def.points,
      remaining: Math.max(def.points - consumed, 0),
      resetSeconds: secondsUntil(ttl > 0 ? ttl : this.windowSeconds(def) * 1000),
      exceeded: consumed > def.points,
    };
  }

  /** Empties one bucket (e.g. after a successful verification). */
  async reset(def: LimitDefinition, key: string): Promise<void> {
    await this.run(() => this.redis.del(this.keyOf(def, key)));
  }

  /**
   * Fails at once while Redis reconnects instead of letting requests queue behind it; a slow Redis is
   * bounded by the connection's command timeout. Either way the request is answered 503.
   */
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
  readonly redis: RedisClient;
}

/** The process's RateLimiter (built once by createServices, shared/create-services.ts). */
export function createRateLimiter(deps: RateLimiterDeps): RateLimiter {
  return new RateLimiter(deps.redis, {
    prefix: deps.config.queuePrefix,
    windowScale: deps.config.rateLimitWindowScale,
    enabled: deps.config.rateLimitsEnabled,
  });
}
