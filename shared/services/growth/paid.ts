import type { UnitOfWork } from '../../unit-of-work';
import { formatMoney } from '../../money';
import { commissionEvent, creditCreatorForOrder } from './creator-ledger';

/**
 * What growth records when an order is paid, in the unit of work that makes it paid (order creation from
 * a paid checkout, a manual payment confirmed, a merchant marking it paid): the creator's commission, and
 * the recovery of a checkout a reminder brought back, each with its webhook event (`creator.commission`,
 * `checkout.recovered`). Each once per order (unique rows, guarded updates, deterministic event ids).
 */
export async function recordPaidOrderGrowth(
  uow: UnitOfWork,
  orderId: number,
  now: Date = new Date(),
): Promise<void> {
  const { trx } = uow;
  const entry = await creditCreatorForOrder(trx, orderId);
  if (entry) await uow.emit(commissionEvent(entry));
  const order = await trx('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .where('o.id', orderId)
    .first<
      | {
          store_id: number;
          checkout_id: number;
          reminder_id: number | null;
          total_minor: string;
          currency: string;
        }
      | undefined
    >('o.store_id', 'o.checkout_id', 'c.reminder_id', 'o.total_minor', 'o.currency');
  if (!order) return;
  // The reminded checkout itself paid, or the one its resume address rebuilt after it expired.
  const recovered: { id: number }[] = await trx('checkout_reminders')
    .where((q) => {
      q.where('checkout_id', order.checkout_id);
      if (order.reminder_id !== null) q.orWhere('id', order.reminder_id);
    })
    .whereNull('recovered_order_id')
    .update({ recovered_order_id: orderId, recovered_minor: Number(order.total_minor), recovered_at: now })
    .returning('id');
  for (const r of recovered) {
    await uow.emit({
      type: 'checkout.recovered',
      id: `checkout.recovered:${r.id}`,
      storeId: Number(order.store_id),
      data: {
        checkout_id: Number(order.checkout_id),
        reminder_id: Number(r.id),
        order_id: orderId,
        total: formatMoney(Number(order.total_minor), order.currency),
        currency: order.currency,
      },
    });
  }
}
