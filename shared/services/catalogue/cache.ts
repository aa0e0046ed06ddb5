import type { Bumps } from '../../unit-of-work';

/**
 * Counters of the store and catalogue caches (shared/cache/versioned.ts), bumped by the writers
 * themselves through their unit of work (`uow.bump`, shared/unit-of-work.ts), after the commit:
 * - `cat:v:all`: everything (a fixture load);
 * - `cat:v:stores`: any store row, its domains or embed key (store lookups by embed key or host read it:
 *   they do not know the store before reading, and store settings change rarely);
 * - `cat:v:s:<store>`: anything of one store the product answer shows (products, prices, categories,
 *   plans, payment methods, currency, code keys), bumped by the merchant writers of those;
 * - `cat:v:p:<product>`: one product's stock, bumped by the stock writers (reservation at checkout, sale,
 *   expiry, cancellation, codes added or withdrawn).
 */
export const CATALOG_ALL = 'cat:v:all';
export const STORES = 'cat:v:stores';
export const storeCounter = (storeId: number): string => `cat:v:s:${storeId}`;
export const productCounter = (productId: number): string => `cat:v:p:${productId}`;

/** After the unit's commit: the stock of these products changed. */
export function noteStockChangedOn(uow: Bumps, productIds: readonly number[]): void {
  uow.bump(productIds.map(productCounter));
}

/** After the unit's commit: something the product answers of this store show changed (not the store row). */
export function noteStoreContentChangedOn(uow: Bumps, storeId: number): void {
  uow.bump([storeCounter(storeId)]);
}

/** After the unit's commit: the store row itself (settings, domains, embed key), and so maybe any of its answers. */
export function noteStoreChangedOn(uow: Bumps, storeId: number): void {
  uow.bump([STORES, storeCounter(storeId)]);
}

/** After the unit's commit: anything of any store may have changed (a fixture load). */
export function noteCatalogChangedEverywhereOn(uow: Bumps): void {
  uow.bump([CATALOG_ALL]);
}
