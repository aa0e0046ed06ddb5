import { NotFoundError } from '../../errors';
import { noteLicenseProductChanged } from './cache';
import type { MerchantLicenseDeps } from './merchant';
import { SELF_RESET_QUOTA, SELF_RESET_WINDOW_DAYS } from './self-reset';

/** A product's license policy (db: license_policies; no row: every default). */
export interface LicensePolicy {
  product_id: number;
  /** Days a license past its expiry still verifies, as `grace`; 0: none. */
  grace_days: number;
  /** Certificates last at most this many days (so the software checks in that often); 0: 30-day limit only. */
  checkin_days: number;
  /** Licenses lend their activations out as seats held by heartbeat (seats.ts). */
  floating: boolean;
  /** A floating seat lasts this long after a heartbeat. */
  heartbeat_seconds: number;
  /** Self-service resets a license may make per window (POST /verify/reset). */
  reset_limit: number;
  reset_window_days: number;
}

export const MAX_GRACE_DAYS = 365;
export const MAX_CHECKIN_DAYS = 30;
export const MIN_HEARTBEAT_SECONDS = 2;
export const MAX_RESET_LIMIT = 100;
export const MAX_RESET_WINDOW_DAYS = 365;
export const MAX_HEARTBEAT_SECONDS = 86_400;

async function ownProduct(deps: MerchantLicenseDeps, storeId: number, productId: number): Promise<void> {
  const found = await deps.knex('products').where({ id: productId, store_id: storeId }).first('id');
  if (!found) throw new NotFoundError('Product not found');
}

export async function showLicensePolicy(
  deps: MerchantLicenseDeps,
  storeId: number,
  productId: number,
): Promise<LicensePolicy> {
  await ownProduct(deps, storeId, productId);
  const row = await deps
    .knex('license_policies')
    .where({ product_id: productId })
    .first<Omit<LicensePolicy, 'product_id'> | undefined>(
      'grace_days',
      'checkin_days',
      'floating',
      'heartbeat_seconds',
      'reset_limit',
      'reset_window_days',
    );
  return {
    product_id: productId,
    grace_days: row?.grace_days ?? 0,
    checkin_days: row?.checkin_days ?? 0,
    floating: row?.floating ?? false,
    heartbeat_seconds: row?.heartbeat_seconds ?? 600,
    reset_limit: row?.reset_limit ?? SELF_RESET_QUOTA,
    reset_window_days: row?.reset_window_days ?? SELF_RESET_WINDOW_DAYS,
  };
}

/**
 * Sets the fields given (the others keep their values), then moves the product's verify cache counter so
 * the next /verify of each of its licenses answers under the new policy.
 */
export async function updateLicensePolicy(
  deps: MerchantLicenseDeps,
  storeId: number,
  productId: number,
  changes: Partial<Omit<LicensePolicy, 'product_id'>>,
): Promise<LicensePolicy> {
  await ownProduct(deps, storeId, productId);
  const now = new Date();
  await deps
    .knex('license_policies')
    .insert({ product_id: productId, ...changes, created_at: now, updated_at: now })
    .onConflict('product_id')
    .merge({ ...changes, updated_at: now });
  await noteLicenseProductChanged(deps, productId);
  return showLicensePolicy(deps, storeId, productId);
}
