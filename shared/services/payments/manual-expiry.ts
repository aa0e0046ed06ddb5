import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import { noteStockChangedOn } from '../catalogue/cache';
import { cancelOrder } from '../orders/cancel';
import type { Queues } from '../../queues';
import { dispatchDeliveries, recordMerchantEvent } from '../merchant/webhooks/events';
import { STATUS_LABELS } from '../merchant/orders';
import { transitionPayment } from './audit';

/**
 * Manual-payment orders (bank transfer, PayPal manual or pay-link) are created "under review" when the
 * buyer chooses the method, and hold what they sell from then on: the code keys are the order's, the
 * stock units are taken, the coupon use is made. A buyer who never pays would hold them for ever, so an
 * order still under review `stores.manual_payment_days` (default 3) after it was placed is cancelled by
 * the `expire-manual-orders` maintenance task:
 * - the order becomes Cancelled (`cancelOrder`: undelivered keys back on sale, licenses revoked, FiveM
 *   commands withdrawn), with an `order_status_events` row of source `maintenance`;
 * - the units of finite-stock products go back to stock;
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

/** Where the merchant's `order.status_changed` webhooks go once a batch has committed (the worker passes it). */
export interface ManualExpiryContext {
  queues: Queues;
  /** Each batch is one unit of work (`deps.tx`): the stock and payment-status bumps wait for its commit. */
  tx: TxDeps['tx'];
  config?: { merchantWebhookRetryDelayMs: number };
}

export async function expireManualOrders(
  knex: Knex,
  now: Date = new Date(),
  ctx: ManualExpiryContext,
): Promise<ManualExpiryResult> {
  const total: ManualExpiryResult = { expired: 0, releasedCodes: 0, releasedStock: 0, releasedCouponUses: 0 };
  for (;;) {
    const { picked, result, deliveries } = await ctx.tx(async (uow) => {
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
      const touched: number[] = [];
      const sends: number[] = [];
      for (const { id } of due) await expireOne(uow, id, now, batch, touched, sends);
      // The product answers show the codes and stock given back.
      noteStockChangedOn(uow, touched);
      return { picked: due.length, result: batch, deliveries: sends };
    });
    for (const key of Object.keys(total) as (keyof ManualExpiryResult)[]) total[key] += result[key];
    // Recorded with the change; a delivery not enqueued now stays in merchant_webhook_deliveries.
    if (ctx.config && deliveries.length > 0) {
      await dispatchDeliveries({ queues: ctx.queues, config: ctx.config }, deliveries);
    }
    if (picked < BATCH) return total;
  }
}

async function expireOne(
  uow: UnitOfWork,
  orderId: number,
  now: Date,
  out: ManualExpiryResult,
  touched: number[],
  deliveries: number[],
): Promise<void> {
  const { trx } = uow;
  const order = await trx('orders').where('id', orderId).first();
  // Confirmed, cancelled or refunded meanwhile (under the lock this cannot change any more).
  if (!order || Number(order.status) !== ORDER_STATUS.UNDER_REVIEW) return;

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
    .select<{ product_id: number; quantity: number }[]>('i.product_id', 'i.quantity');

  await cancelOrder({ uow }, orderId, 'cancelled', now);
  for (const item of stocked) {
    await trx('products')
      .where('id', item.product_id)
      .whereNotNull('stock')
      .update({ stock: trx.raw('stock + ?', [Number(item.quantity)]), updated_at: now });
    touched.push(Number(item.product_id));
  }
  const codeProducts = await trx('order_items').where('order_id', orderId).pluck<number[]>('product_id');
  touched.push(...codeProducts.filter((id) => id !== null).map(Number));

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
  const [audit] = await trx('order_status_events')
    .insert({
      store_id: order.store_id,
      order_id: orderId,
      from_status: ORDER_STATUS.UNDER_REVIEW,
      to_status: ORDER_STATUS.CANCELLED,
      source: 'maintenance',
      data: JSON.stringify({ reason: 'manual_payment_deadline' }),
      created_at: now,
    })
    .returning<{ id: number }[]>('id');
  deliveries.push(
    ...(await recordMerchantEvent(
      trx,
      Number(order.store_id),
      {
        id: `order.status_changed:${audit!.id}`,
        type: 'order.status_changed',
        data: {
          order_id: orderId,
          from: ORDER_STATUS.UNDER_REVIEW,
          to: ORDER_STATUS.CANCELLED,
          status_label: STATUS_LABELS[ORDER_STATUS.CANCELLED],
          reason: 'manual_payment_deadline',
        },
      },
      now,
    )),
  );

  out.expired += 1;
  out.releasedCodes += Number(codes);
  out.releasedStock += stocked.reduce((n, i) => n + Number(i.quantity), 0);
  out.releasedCouponUses += uses.length;
}
