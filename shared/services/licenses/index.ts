import type { Knex } from 'knex';
import { Order, OrderItem, PlanDuration, Product } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { afterCommit, inTransaction } from '../../after-commit';
import type { UnitOfWork } from '../../unit-of-work';
import { noteLicensesChangedOn, noteLicensesChangedSafely, type LicenseCacheDeps } from './cache';
import { generateLicenseKey } from './keys';
import { periodEnd } from './periods';

export * from './keys';
export * from './periods';
export { noteLicenseProductChanged, noteLicensesChanged } from './cache';
export { licenseSettingsForMerchant, type MerchantLicenseSettings } from './product-settings';

/** Attempts at a fresh key when the one drawn is already taken (80 random bits: practically never twice). */
const KEY_ATTEMPTS = 8;

export class LicenseKeyExhaustedError extends Error {
  constructor(orderItemId: number) {
    super(`could not draw an unused license key for order item ${orderItemId}`);
    this.name = 'LicenseKeyExhaustedError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * One license per unit of an order item, status generated (spec, License: "(none) -> generated on
 * purchase"). Safe to run twice and at once: each unit has its own row, unique on (order_item_id, unit),
 * and an insert that meets any unique key changes nothing; when the unit still has no license afterwards,
 * the key collided with another license and a new key is drawn. Returns how many were created.
 */
export async function generateItemLicenses(
  knex: Knex,
  order: Pick<Order, 'id' | 'store_id' | 'customer_id'>,
  item: Pick<OrderItem, 'id' | 'quantity' | 'plan_id'>,
  product: Pick<Product, 'id' | 'license_prefix' | 'license_lock_type' | 'license_max_activations'>,
  /** Draws a key; tests pass one that collides on purpose. */
  drawKey: (prefix: string | null) => string = generateLicenseKey,
): Promise<number> {
  const existing = new Set<number>(await knex('licenses').where({ order_item_id: item.id }).pluck('unit'));
  let created = 0;
  for (let unit = 1; unit <= item.quantity; unit += 1) {
    if (existing.has(unit)) continue;
    let done = false;
    for (let attempt = 0; attempt < KEY_ATTEMPTS && !done; attempt += 1) {
      const inserted = await knex('licenses')
        .insert({
          store_id: order.store_id,
          product_id: product.id,
          plan_id: item.plan_id,
          customer_id: order.customer_id,
          order_id: order.id,
          order_item_id: item.id,
          unit,
          key: drawKey(product.license_prefix),
          status: 'generated',
          lock_type: product.license_lock_type ?? 'none',
          max_activations: product.license_max_activations,
        })
        .onConflict()
        .ignore()
        .returning('id');
      if (inserted.length > 0) {
        created += 1;
        done = true;
      } else {
        done = (await knex('licenses').where({ order_item_id: item.id, unit }).first('id')) !== undefined;
      }
    }
    if (!done) throw new LicenseKeyExhaustedError(item.id);
  }
  return created;
}

/**
 * Spec, License: "generated -> active when the order completes", with the expiry of the plan's duration
 * (monthly +1 month, quarterly +3, yearly +1 year, lifetime or no plan: none). Only generated licenses
 * move, so running it twice changes nothing. Returns how many were activated.
 */
export async function activateOrderLicenses(
  knex: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<number> {
  const rows = await knex('licenses as l')
    .leftJoin('product_plans as p', 'p.id', 'l.plan_id')
    .where({ 'l.order_id': orderId, 'l.status': 'generated' })
    .select<{ id: number; duration: PlanDuration | null }[]>('l.id', 'p.duration');
  const byDuration = new Map<PlanDuration | null, number[]>();
  for (const row of rows) byDuration.set(row.duration, [...(byDuration.get(row.duration) ?? []), row.id]);
  let activated = 0;
  for (const [duration, ids] of byDuration) {
    activated += await knex('licenses')
      .whereIn('id', ids)
      .where('status', 'generated')
      .update({ status: 'active', starts_at: now, expires_at: periodEnd(now, duration), updated_at: now });
  }
  return activated;
}

/** Spec, License: cancelled or refunded order -> every license of the order revoked. */
export async function revokeOrderLicenses(
  knex: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<number> {
  return knex('licenses')
    .where('order_id', orderId)
    .whereNot('status', 'revoked')
    .update({ status: 'revoked', updated_at: now });
}

/** In a unit of work: the verify cache counters of this order's licenses move after its commit. */
export async function noteOrderLicensesChangedOn(uow: UnitOfWork, orderId: number): Promise<void> {
  const keys = await uow.trx('licenses').where('order_id', orderId).pluck<string[]>('key');
  noteLicensesChangedOn(uow, keys);
}

/**
 * After an order's licenses changed (revoked, activated): moves their verify cache counters, so every
 * process answers the new state at once. The counters must move AFTER the change commits (a verify in
 * between would cache the old state under the new counter): given a transaction, the bump waits for its
 * commit (and is dropped on rollback). Without Redis in `deps` (a caller that passes only a knex) cached
 * answers age out within the cache TTL instead.
 */
export async function noteOrderLicensesChanged(
  deps: { knex: Knex; logger?: { warn(obj: object, msg: string): void } } & Partial<LicenseCacheDeps>,
  orderId: number,
): Promise<void> {
  if (!deps.redis || !deps.config) return;
  const keys = await deps.knex('licenses').where('order_id', orderId).pluck<string[]>('key');
  const cacheDeps = { redis: deps.redis, config: deps.config, logger: deps.logger };
  const bump = (): Promise<void> => noteLicensesChangedSafely(cacheDeps, keys);
  // Not awaited inside a transaction: the bump waits for the outermost commit (shared/after-commit.ts).
  const bumped = afterCommit(deps.knex, bump);
  if (!inTransaction(deps.knex)) await bumped;
}

/**
 * The `licenses` job: (re)generates the keys of one order item, as fulfilment does inline; an operator
 * uses it to regenerate a missing key. Safe to run twice. An item, order or product that no longer exists
 * is a NotFoundError (nothing to retry).
 */
export async function licenseOrderItem(knex: Knex, orderItemId: number): Promise<{ generated: number }> {
  const item = await OrderItem.query(knex).findById(orderItemId);
  const order = item ? await Order.query(knex).findById(item.order_id) : undefined;
  const product = item?.product_id ? await Product.query(knex).findById(item.product_id) : undefined;
  if (!item || !order || !product) throw new NotFoundError(`order item ${orderItemId} cannot be licensed`);
  if (!product.license_enabled) return { generated: 0 };
  return { generated: await generateItemLicenses(knex, order, item, product) };
}
