import type { RedisClient } from '../redis';

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

/** A stamp of the counters that guard one cached value: equal stamps mean nothing changed in between. */
export async function readStamp(deps: CacheDeps, counters: readonly string[]): Promise<string> {
  const values = await deps.redis.mget(...counters.map((c) => counterKey(deps, c)));
  return values.map((v) => v ?? '0').join('.');
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
    if (entry.stamp !== stamp || now - entry.storedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Stores `value` read AFTER `stamp` was read, so a change committed in between makes the stamp stale. */
  set(key: string, stamp: string, value: T, now = Date.now()): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { stamp, storedAt: now, value });
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
