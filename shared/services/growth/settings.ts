import Joi from 'joi';
import type { Knex } from 'knex';
import { ValidationError } from '../../errors';

/**
 * The store settings growth adds (operator contract, "Growth", and docs/growth.md), under `settings` in
 * PATCH /shawarma/store, GET /shawarma/store and the fixture's store:
 * - `abandoned_checkout_minutes`: how long a checkout stays unpaid before its one reminder (default 60;
 *   0 turns reminders off; at most 10,080: a week);
 * - `abandoned_checkout_coupon`: a coupon code of the store the reminder names (null: none).
 */
export interface GrowthSettings {
  abandoned_checkout_minutes?: number;
  abandoned_checkout_coupon?: string | null;
}

export const growthSettingsKeys = {
  abandoned_checkout_minutes: Joi.number().integer().strict().min(0).max(10_080),
  abandoned_checkout_coupon: Joi.string().trim().max(100).allow(null),
};

export function growthSettingsOf(store: {
  abandoned_checkout_minutes?: number | null;
  abandoned_checkout_coupon?: string | null;
}): Required<GrowthSettings> {
  return {
    abandoned_checkout_minutes: Number(store.abandoned_checkout_minutes ?? 60),
    abandoned_checkout_coupon: store.abandoned_checkout_coupon ?? null,
  };
}

/**
 * Writes the growth settings of `patch` (the coupon must be a code of the store's: 422 naming
 * `settings.abandoned_checkout_coupon`); answers what changed, for the audit log.
 */
export async function writeGrowthSettings(
  trx: Knex,
  storeId: number,
  patch: GrowthSettings,
  before: Record<string, unknown>,
): Promise<Record<string, { from: unknown; to: unknown }>> {
  const columns: Record<string, unknown> = {};
  if (patch.abandoned_checkout_minutes !== undefined)
    columns.abandoned_checkout_minutes = patch.abandoned_checkout_minutes;
  if (patch.abandoned_checkout_coupon !== undefined) {
    const code = patch.abandoned_checkout_coupon;
    if (code !== null) {
      const coupon = await trx('coupons')
        .where('store_id', storeId)
        .whereRaw('lower(code) = lower(?)', [code])
        .first('code');
      if (!coupon) {
        throw ValidationError.field(
          'settings.abandoned_checkout_coupon',
          'is not a coupon code of this store',
        );
      }
      columns.abandoned_checkout_coupon = coupon.code;
    } else {
      columns.abandoned_checkout_coupon = null;
    }
  }
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, value] of Object.entries(columns)) {
    if (before[key] !== value) changes[`settings.${key}`] = { from: before[key], to: value };
  }
  if (Object.keys(changes).length > 0) await trx('stores').where('id', storeId).update(columns);
  return changes;
}
