import { sha256 } from '../../crypto';
import type { Bumps } from '../../unit-of-work';
import {
  bump,
  bumpSafely,
  readStamp as readCounters,
  type CacheDeps,
  type CacheLogger,
} from '../../cache/versioned';

export { CACHE_TTL_MS, StampedCache } from '../../cache/versioned';

/**
 * Invalidation of the verify cache, on the shared mechanism of shared/cache/versioned.ts: every process
 * keeps what it read from Postgres in memory, stamped with version counters kept in Redis; a change to a
 * license bumps its counter AFTER the change commits, and every cached answer is checked against the
 * counters (one MGET) before it is used. So a revoke is seen by the next verify on every process at once,
 * while a repeated verify of an unchanged license costs one Redis round trip and no Postgres.
 *
 * Counters: one per license key (activations, suspend, reactivate, reset), one per product (its license
 * settings: encryption, name) and one for everything (changes made in bulk: an order's licenses revoked or
 * activated, a fixture load), which writers that do not know the ids use.
 */
export type LicenseCacheDeps = CacheDeps;

export const LICENSE_ALL = 'license:v:all';
const ALL = LICENSE_ALL;
// By key, not id: a verify knows the key it was given before it reads anything from Postgres. Hashed, so
// Redis never holds a license key.
const licenseCounter = (key: string): string => `license:v:k:${sha256(key.toUpperCase()).slice(0, 32)}`;
const productCounter = (id: number): string => `license:v:p:${id}`;

/**
 * Bumps the counters of the licenses with these keys (none given: of every license). Call after the change
 * committed.
 */
export async function noteLicensesChanged(
  deps: LicenseCacheDeps,
  licenseKeys?: readonly string[],
): Promise<void> {
  if (licenseKeys === undefined) return bump(deps, [ALL]);
  await bump(deps, licenseKeys.map(licenseCounter));
}

/** Bumps a product's counter: call after its license settings (encryption, key, name) changed. */
export async function noteLicenseProductChanged(deps: LicenseCacheDeps, productId: number): Promise<void> {
  await bump(deps, [productCounter(productId)]);
}

/** In a unit of work (after its commit): a product's license settings changed. */
export function noteLicenseProductChangedOn(uow: Bumps, productId: number): void {
  uow.bump([productCounter(productId)]);
}

/** In a unit of work (after its commit): these licenses changed (none given: any license). */
export function noteLicensesChangedOn(uow: Bumps, licenseKeys?: readonly string[]): void {
  uow.bump(licenseKeys === undefined ? [ALL] : licenseKeys.map(licenseCounter));
}

/**
 * Bumps the counters, logging rather than failing when Redis is unreachable: the change itself has
 * committed, and cached entries expire on their own within CACHE_TTL_MS.
 */
export async function noteLicensesChangedSafely(
  deps: LicenseCacheDeps & { logger?: CacheLogger },
  licenseKeys?: readonly string[],
): Promise<void> {
  await bumpSafely(deps, licenseKeys === undefined ? [ALL] : licenseKeys.map(licenseCounter));
}

/** A stamp of the counters that guard one cached value: equal stamps mean nothing changed in between. */
export async function readStamp(
  deps: LicenseCacheDeps,
  ids: { licenseKey?: string; productId: number },
): Promise<string> {
  const counters = [ALL, productCounter(ids.productId)];
  if (ids.licenseKey !== undefined) counters.push(licenseCounter(ids.licenseKey));
  return readCounters(deps, counters);
}
