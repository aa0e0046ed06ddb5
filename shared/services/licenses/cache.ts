import type { Redis } from 'ioredis';
import { sha256 } from '../../crypto';

/**
 * Invalidation of the verify cache. Every process keeps what it read from Postgres in memory, stamped with
 * version counters kept in Redis; a change to a license bumps its counter AFTER the change commits, and
 * every cached answer is checked against the counters (one MGET) before it is used. So a revoke is seen by
 * the next verify on every process at once, while a repeated verify of an unchanged license costs one Redis
 * round trip and no Postgres.
 *
 * Counters: one per license key (activations, suspend, reactivate, reset), one per product (its license
 * settings: encryption, name) and one for everything (changes made in bulk: an order's licenses revoked or
 * activated, a fixture load), which writers that do not know the ids use.
 */
export interface LicenseCacheDeps {
  redis: Redis;
  config: { queuePrefix: string };
}

const allKey = (prefix: string): string => `${prefix}:license:v:all`;
// By key, not id: a verify knows the key it was given before it reads anything from Postgres. Hashed, so
// Redis never holds a license key.
const licenseKey = (prefix: string, key: string): string =>
  `${prefix}:license:v:k:${sha256(key.toUpperCase()).slice(0, 32)}`;
const productKey = (prefix: string, id: number): string => `${prefix}:license:v:p:${id}`;

/**
 * Bumps the counters of the licenses with these keys (none given: of every license). Call after the change
 * committed.
 */
export async function noteLicensesChanged(
  deps: LicenseCacheDeps,
  licenseKeys?: readonly string[],
): Promise<void> {
  const prefix = deps.config.queuePrefix;
  if (licenseKeys === undefined) {
    await deps.redis.incr(allKey(prefix));
    return;
  }
  if (licenseKeys.length === 0) return;
  const multi = deps.redis.multi();
  for (const key of new Set(licenseKeys)) multi.incr(licenseKey(prefix, key));
  await multi.exec();
}

/** Bumps a product's counter: call after its license settings (encryption, key, name) changed. */
export async function noteLicenseProductChanged(deps: LicenseCacheDeps, productId: number): Promise<void> {
  await deps.redis.incr(productKey(deps.config.queuePrefix, productId));
}

/**
 * Bumps the counters, logging rather than failing when Redis is unreachable: the change itself has
 * committed, and cached entries expire on their own within CACHE_TTL_MS.
 */
export async function noteLicensesChangedSafely(
  deps: LicenseCacheDeps & { logger?: { warn(obj: object, msg: string): void } },
  licenseKeys?: readonly string[],
): Promise<void> {
  try {
    await noteLicensesChanged(deps, licenseKeys);
  } catch (err) {
    deps.logger?.warn({ err: (err as Error).message }, 'license cache counters not bumped');
  }
}

/**
 * Longest an entry is used even when no counter moved: bounds what a writer that bumps nothing leaves
 * (a fixture load, manual SQL). Short, because a hit costs a Redis round trip anyway: a license verified
 * 1,000 times a second still reads Postgres once per 5 seconds per process.
 */
export const CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 20_000;

interface Entry<T> {
  stamp: string;
  storedAt: number;
  value: T;
}

/** A stamp of the counters that guard one cached value: equal stamps mean nothing changed in between. */
export async function readStamp(
  deps: LicenseCacheDeps,
  ids: { licenseKey?: string; productId: number },
): Promise<string> {
  const prefix = deps.config.queuePrefix;
  const keys = [allKey(prefix), productKey(prefix, ids.productId)];
  if (ids.licenseKey !== undefined) keys.push(licenseKey(prefix, ids.licenseKey));
  const values = await deps.redis.mget(...keys);
  return values.map((v) => v ?? '0').join('.');
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
