import { Redis } from 'ioredis';
import { redisOptions, type RedisClient, type RedisTarget } from '../redis';

/**
 * Hot reads without Postgres: every process keeps what it read in memory, stamped with version counters
 * kept in Redis. A writer bumps the counters of what it changed AFTER its transaction commits, and every
 * cached value is checked against the counters (one MGET) before it is used. So a change is seen by the
 * next read on every process at once, while a repeated read of an unchanged row costs one Redis round
 * trip and no Postgres.
 *
 * Why the order matters: a reader reads the stamp BEFORE it reads Postgres and stores the value under
 * that stamp. A writer that commits after the reader's Postgres read bumps after that, so the stamp the
 * value was stored under is already stale at the next read; a writer that committed before the reader's
 * Postgres read is in the value. Bumping before commit would let a reader store the old row under the
 * new stamp.
 *
 * The TTL is a safety net for writers that bump nothing (manual SQL, a writer someone forgot): short,
 * because a hit costs a Redis round trip anyway.
 */
export interface CacheDeps {
  redis: RedisClient;
  config: { queuePrefix: string };
}

export interface CacheLogger {
  warn(obj: object, msg: string): void;
}

export const CACHE_TTL_MS = 5_000;
export const MAX_ENTRIES = 20_000;

/** The Redis key of one counter (`<prefix>:{cache}:<name>`): `name` is e.g. `license:v:all` or `pay:v:c:42`. */
// `{cache}` is a Redis Cluster hash tag: every counter of a deployment is in one slot, so the MGET of a
// stamp and the MULTI of a bump are single-slot commands a cluster accepts.
export const counterKey = (deps: CacheDeps, name: string): string =>
  `${deps.config.queuePrefix}:{cache}:${name}`;

/**
 * A stamp of the counters that guard one cached value: equal stamps mean nothing changed in between.
 * With the process's counter tracking live (`deps.caches.counters`, TrackedCounters) the counters are
 * answered from memory when every one of them is known; otherwise one MGET.
 */
export async function readStamp(
  deps: CacheDeps & { caches?: HotCaches },
  counters: readonly string[],
): Promise<string> {
  const keys = counters.map((c) => counterKey(deps, c));
  const tracked = deps.caches?.counters;
  const values = tracked ? await tracked.read(deps.redis, keys) : await deps.redis.mget(...keys);
  return values.map((v) => v ?? '0').join('.');
}

/**
 * Redis server-assisted client-side caching of the version counters (Redis "client-side caching",
 * broadcasting mode): one dedicated connection per process asks Redis to tell it about every write to a
 * key under `<prefix>:{cache}:` (`CLIENT TRACKING ON REDIRECT <itself> BCAST PREFIX ...`, RESP2, the
 * messages arriving on `__redis__:invalidate`). A counter read once is then kept in memory until Redis
 * says it was written, so a cache hit asks Redis nothing.
 *
 * Correctness:
 * - A counter is kept only while tracking is live: from the moment the connection has subscribed, until
 *   it closes. Every (re)connection starts with an empty map; a close, an error or a failed setup empties
 *   it and reads go back to one MGET each (the validated-stamp behaviour) until tracking is live again.
 *   So a lost invalidation (the connection dropped, Redis restarted or killed the client for its output
 *   buffer) never leaves a stale counter behind.
 * - A value read by MGET is kept only when no invalidation arrived while it was in flight (the message
 *   and the reply travel on two connections, in either order).
 * - A counter is kept at most `maxAgeMs` (CACHE_TTL_MS) and then read again, and cached values expire
 *   after CACHE_TTL_MS anyway: the bound on anything tracking could miss without closing the connection.
 * - A FLUSHALL/FLUSHDB (an invalidation without keys) empties the map.
 * A change is therefore seen by a process as soon as Redis's message reaches it (it is sent when the
 * writer's INCR runs, before the writer gets its reply), at worst after CACHE_TTL_MS.
 *
 * Not on a Redis Cluster (REDIS_CLUSTER_NODES): tracking is per node and the counters' slot moves with a
 * failover, so a cluster keeps the validated-stamp behaviour (one MGET per read); see docs/caching.md.
 */
export class TrackedCounters {
  private readonly values = new Map<string, { value: string | null; at: number }>();
  private live = false;
  /** Moves with every invalidation and every change of connection. */
  private generation = 0;
  /** Moves with every change of connection only. */
  private session = 0;
  private closed = false;

  constructor(
    private readonly conn: Redis,
    private readonly prefix: string,
    private readonly logger?: CacheLogger,
    private readonly maxAgeMs = CACHE_TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {
    conn.on('messageBuffer', (_channel: Buffer, keys: unknown) => this.invalidate(keys));
    conn.on('ready', () => void this.establish());
    for (const event of ['close', 'end', 'reconnecting']) conn.on(event, () => this.drop());
    conn.on('error', (err: Error) => {
      this.drop();
      this.logger?.warn({ err: err.message }, 'cache counter tracking: redis connection error');
    });
    if (conn.status === 'ready') void this.establish();
  }

  /** True while invalidations are being received (counters are answered from memory). */
  get isLive(): boolean {
    return this.live;
  }

  /** How many counters are known in memory. */
  get size(): number {
    return this.values.size;
  }

  /** The values of these counter keys: from memory when all are known and tracking is live, else one MGET. */
  async read(redis: RedisClient, keys: readonly string[]): Promise<(string | null)[]> {
    if (this.live) {
      const now = Date.now();
      const known: (string | null)[] = [];
      for (const key of keys) {
        const entry = this.values.get(key);
        if (!entry || now - entry.at > this.maxAgeMs) break;
        known.push(entry.value);
      }
      if (known.length === keys.length) return known;
    }
    const generation = this.generation;
    const values = await redis.mget(...keys);
    if (this.live && generation === this.generation) {
      const now = Date.now();
      keys.forEach((key, i) => {
        if (this.values.size >= this.maxEntries && !this.values.has(key)) {
          const oldest = this.values.keys().next().value;
          if (oldest !== undefined) this.values.delete(oldest);
        }
        this.values.set(key, { value: values[i] ?? null, at: now });
      });
    }
    return values;
  }

  /** Stops tracking and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.drop();
    await this.conn.quit().catch(() => undefined);
    this.conn.disconnect();
  }

  private async establish(): Promise<void> {
    this.drop();
    const session = this.session;
    try {
      const id = await this.conn.client('ID');
      await this.conn.call(
        'CLIENT',
        'TRACKING',
        'ON',
        'REDIRECT',
        String(id),
        'BCAST',
        'PREFIX',
        this.prefix,
      );
      await this.conn.subscribe('__redis__:invalidate');
      // Anything read before this point was read without tracking: a new generation keeps it out.
      if (session !== this.session || this.closed) return;
      this.generation++;
      this.live = true;
    } catch (err) {
      this.drop();
      this.logger?.warn(
        { err: (err as Error).message },
        'cache counter tracking not set up: every cached read checks its counters in Redis',
      );
    }
  }

  private drop(): void {
    this.live = false;
    this.session++;
    this.generation++;
    this.values.clear();
  }

  private invalidate(keys: unknown): void {
    this.generation++;
    if (!Array.isArray(keys)) {
      this.values.clear();
      return;
    }
    for (const key of keys) this.values.delete(String(key));
  }
}

/**
 * The counter tracking of one process (TrackedCounters) on its own connection, or undefined on a Redis
 * Cluster (validated stamps there: one MGET per read).
 */
export function trackCounters(
  target: RedisTarget,
  deps: CacheDeps & { logger?: CacheLogger },
  name?: string,
): TrackedCounters | undefined {
  if (typeof target !== 'string') return undefined;
  const conn = new Redis(target, {
    ...redisOptions('general'),
    protocol: 2,
    autoResubscribe: false,
    connectionName: name,
  });
  return new TrackedCounters(conn, counterKey(deps, ''), deps.logger);
}

/** Bumps these counters in one round trip. Call after the change committed. */
export async function bump(deps: CacheDeps, counters: readonly string[]): Promise<void> {
  const unique = [...new Set(counters)];
  if (unique.length === 0) return;
  if (unique.length === 1) {
    await deps.redis.incr(counterKey(deps, unique[0]!));
    return;
  }
  const multi = deps.redis.multi();
  for (const c of unique) multi.incr(counterKey(deps, c));
  await multi.exec();
}

/**
 * Bumps, logging rather than failing when Redis is unreachable: the change itself has committed, and
 * cached entries expire on their own within the TTL.
 */
export async function bumpSafely(
  deps: CacheDeps & { logger?: CacheLogger },
  counters: readonly string[],
): Promise<void> {
  try {
    await bump(deps, counters);
  } catch (err) {
    deps.logger?.warn({ err: (err as Error).message, counters }, 'cache counters not bumped');
  }
}

interface Entry<T> {
  stamp: string;
  storedAt: number;
  value: T;
  /** When the value stops being true whatever the counters say (a timed sale's start or end), if ever. */
  validUntil?: number;
}

/** A bounded in-process map; the oldest entries go first when it is full. */
export class StampedCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly ttlMs = CACHE_TTL_MS,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The value stored under `key` when it was stored with `stamp` and is younger than the TTL. */
  get(key: string, stamp: string, now = Date.now()): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (
      entry.stamp !== stamp ||
      now - entry.storedAt > this.ttlMs ||
      (entry.validUntil !== undefined && now >= entry.validUntil)
    ) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` read AFTER `stamp` was read, so a change committed in between makes the stamp stale. */
  set(key: string, stamp: string, value: T, now = Date.now(), validUntil?: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, {
      stamp,
      storedAt: now,
      value,
      ...(validUntil !== undefined ? { validUntil } : {}),
    });
  }

  /** The stored value whatever its stamp (to add facts that only stay true while its stamp holds). */
  peek(key: string, stamp: string): T | undefined {
    const entry = this.entries.get(key);
    return entry && entry.stamp === stamp ? entry.value : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * The hot-read caches of one process, built once with its wiring (createDeps: `deps.caches`): one
 * StampedCache per name, and the reads under way (`once`), so that callers asking the same thing at the
 * same moment share one Postgres read. A test's app has its own wiring, hence its own caches.
 */
export class HotCaches {
  private readonly byName = new Map<string, StampedCache<unknown>>();
  private readonly running = new Map<string, Promise<unknown>>();

  /** @param counters this process's counter tracking (none: every read checks its counters in Redis). */
  constructor(readonly counters?: TrackedCounters) {}

  /** The cache called `name` (made on first use with these bounds). */
  of<T>(name: string, ttlMs = CACHE_TTL_MS, maxEntries = MAX_ENTRIES): StampedCache<T> {
    let cache = this.byName.get(name);
    if (!cache) {
      cache = new StampedCache<unknown>(ttlMs, maxEntries);
      this.byName.set(name, cache);
    }
    return cache as StampedCache<T>;
  }

  /** Runs `work` once for every caller asking with the same key while it is under way. */
  once<T>(key: string, work: () => Promise<T>): Promise<T> {
    const pending = this.running.get(key) as Promise<T> | undefined;
    if (pending) return pending;
    const started = work().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }
}

/** What a hot read needs: the counters in Redis and this process's caches. */
export type HotReadDeps = CacheDeps & { caches: HotCaches };
