import type { Knex } from 'knex';
import { creditCreatorForOrder } from './creators';

/**
 * What growth records when an order is paid, in the transaction that makes it paid (order creation from
 * a paid checkout, a manual payment confirmed, a merchant marking it paid): the creator's commission, and
 * the recovery of a checkout a reminder brought back. Each once per order (unique rows, guarded updates).
 */
export async function recordPaidOrderGrowth(
  trx: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<void> {
  await creditCreatorForOrder(trx, orderId);
  const order = await trx('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .where('o.id', orderId)
    .first<{ checkout_id: number; reminder_id: number | null; total_minor: string } | undefined>(
      'o.checkout_id',
      'c.reminder_id',
      'o.total_minor',
    );
  if (!order) return;
  // The reminded checkout itself paid, or the one its resume address rebuilt after it expired.
  await trx('checkout_reminders')
    .where((q) => {
      q.where('checkout_id', order.checkout_id);
      if (order.reminder_id !== null) q.orWhere('id', order.reminder_id);
    })
    .whereNull('recovered_order_id')
    .update({ recovered_order_id: orderId, recovered_minor: Number(order.total_minor), recovered_at: now });
}
