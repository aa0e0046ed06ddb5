import type { Knex } from 'knex';
import { bumpAfterCommit, bumpSafely, type CacheDeps, type CacheLogger } from '../../cache/versioned';

/**
 * Counters of the store and catalogue caches (shared/cache/versioned.ts):
 * - `cat:v:all`: everything (a fixture load);
 * - `cat:v:stores`: any store row, its domains or embed key (store lookups by embed key or host read it:
 *   they do not know the store before reading, and store settings change rarely);
 * - `cat:v:s:<store>`: anything of one store the product answer shows (products, prices, categories,
 *   plans, payment methods, currency, code keys) — bumped by every successful merchant write;
 * - `cat:v:p:<product>`: one product's stock, bumped by the buyer-side stock writers (reservation at
 *   checkout, sale, expiry, cancellation).
 */
export const CATALOG_ALL = 'cat:v:all';
export const STORES = 'cat:v:stores';
export const storeCounter = (storeId: number): string => `cat:v:s:${storeId}`;
export const productCounter = (productId: number): string => `cat:v:p:${productId}`;

/** After commit of `knex`'s transaction: the stock of these products changed. */
export function noteStockChanged(knex: Knex, productIds: readonly number[]): Promise<void> {
  return bumpAfterCommit(knex, productIds.map(productCounter));
}

/** After commit: anything of this store (its row, domains, products, prices, methods...) may have changed. */
export function noteStoreChanged(deps: CacheDeps & { logger?: CacheLogger }, storeId: number): Promise<void> {
  return bumpSafely(deps, [STORES, storeCounter(storeId)]);
}

/** After commit of `knex`'s transaction: anything of any store may have changed (a fixture load). */
export function noteCatalogChangedEverywhere(knex: Knex): Promise<void> {
  return bumpAfterCommit(knex, [CATALOG_ALL]);
}
