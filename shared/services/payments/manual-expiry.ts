import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import { changeOrderStatus, type ChangeStatusDeps } from '../orders/change-status';
import { transitionPayment } from '../payment-records/audit';

/**
 * Manual-payment orders (bank transfer, PayPal manual or pay-link) are created "under review" when the
 * buyer chooses the method, and hold what they sell from then on: the code keys are the order's, the
 * stock units are taken, the coupon use is made. A buyer who never pays would hold them for ever, so an
 * order still under review `stores.manual_payment_days` (default 3) after it was placed is cancelled by
 * the `expire-manual-orders` maintenance task:
 * - the order becomes Cancelled through the order lifecycle (shared/services/orders/change-status.ts:
 *   undelivered keys back on sale, units of finite-stock products back in stock, licenses revoked, FiveM
 *   commands withdrawn), with its status event of source `system` and reason `manual_payment_deadline`,
 *   and the merchant's `order.status_changed` webhook;
 * - the coupon use is given back (its `coupon_uses` row removed, `uses_count` down by one);
 * - the payment moves initiated -> expired, with its audit row.
 * A merchant who confirms the payment first wins: the order is no longer under review when the task looks.
 *
 * Safe to run twice or at once on two workers: orders are picked with FOR UPDATE SKIP LOCKED and each is
 * re-read under its lock, so a second run finds nothing to do.
 */
export const MANUAL_METHODS = ['bank', 'paypal'] as const;
const BATCH = 200;

export interface ManualExpiryResult extends Record<string, number> {
  expired: number;
  releasedCodes: number;
  releasedStock: number;
  releasedCouponUses: number;
}

/** When a manual-payment order placed at `placedAt` stops waiting for the money. */
export function manualPaymentDeadline(placedAt: Date, days: number): Date {
  return new Date(placedAt.getTime() + days * 86_400_000);
}

/**
 * The process's deps: each batch is one unit of work (`deps.tx`), whose status changes (shared/services/
 * orders) stage their webhook deliveries and cache bumps for its commit.
 */
export type ManualExpiryContext = ChangeStatusDeps & TxDeps;

export async function expireManualOrders(
  knex: Knex,
  now: Date = new Date(),
  ctx: ManualExpiryContext,
): Promise<ManualExpiryResult> {
  const total: ManualExpiryResult = { expired: 0, releasedCodes: 0, releasedStock: 0, releasedCouponUses: 0 };
  for (;;) {
    const { picked, result } = await ctx.tx(async (uow) => {
      const { trx } = uow;
      const due = await trx('orders as o')
        .join('stores as s', 's.id', 'o.store_id')
        .where('o.status', ORDER_STATUS.UNDER_REVIEW)
        .whereIn('o.payment_method', MANUAL_METHODS)
        .whereRaw("o.created_at < ?::timestamptz - s.manual_payment_days * interval '1 day'", [now])
        .orderBy('o.created_at')
        .limit(BATCH)
        .forUpdate('o')
        .skipLocked()
        .select<{ id: number }[]>('o.id');
      const batch: ManualExpiryResult = {
        expired: 0,
        releasedCodes: 0,
        releasedStock: 0,
        releasedCouponUses: 0,
      };
      for (const { id } of due) await expireOne(ctx, uow, id, now, batch);
      return { picked: due.length, result: batch };
    });
    for (const key of Object.keys(total) as (keyof ManualExpiryResult)[]) total[key] += result[key];
    if (picked < BATCH) return total;
  }
}

async function expireOne(
  deps: ChangeStatusDeps,
  uow: UnitOfWork,
  orderId: number,
  now: Date,
  out: ManualExpiryResult,
): Promise<void> {
  const { trx } = uow;
  const order = await trx('orders').where('id', orderId).first();
  // Confirmed, cancelled or refunded meanwhile (under the lock this cannot change any more).
  if (!order || Number(order.status) !== ORDER_STATUS.UNDER_REVIEW) return;

  // What the cancellation gives back, counted for the task's report before the lifecycle moves it.
  const undelivered = trx('order_items').select('id').where('order_id', orderId).whereNull('delivered_at');
  const [{ n: codes }] = await trx('product_codes')
    .whereIn('order_item_id', undelivered.clone())
    .count<{ n: string }[]>('* as n');
  const stocked = await trx('order_items as i')
    .join('products as p', 'p.id', 'i.product_id')
    .where('i.order_id', orderId)
    .whereNull('i.delivered_at')
    .whereNot('p.type', 'code')
    .whereNotNull('p.stock')
    .select<{ quantity: number }[]>('i.quantity');

  const change = await changeOrderStatus(deps, Number(order.store_id), orderId, ORDER_STATUS.CANCELLED, {
    actor: { kind: 'system' },
    reason: 'manual_payment_deadline',
    onlyFrom: [ORDER_STATUS.UNDER_REVIEW],
    within: { uow },
    now,
  });
  if (!change.changed) return;

  const uses = await trx('coupon_uses')
    .where('order_id', orderId)
    .del()
    .returning<{ coupon_id: number }[]>('coupon_id');
  for (const use of uses) {
    await trx('coupons')
      .where('id', use.coupon_id)
      .update({ uses_count: trx.raw('greatest(uses_count - 1, 0)'), updated_at: now });
  }

  if (order.payment_id !== null) {
    await transitionPayment(uow, Number(order.payment_id), {
      from: ['pending', 'initiated'],
      to: 'expired',
      source: 'sweep',
      data: { order_id: orderId, reason: 'manual payment deadline passed' },
    });
  }

  out.expired += 1;
  out.releasedCodes += Number(codes);
  out.releasedStock += stocked.reduce((n, i) => n + Number(i.quantity), 0);
  out.releasedCouponUses += uses.length;
}
