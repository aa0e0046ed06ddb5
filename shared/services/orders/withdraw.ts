import type { Knex } from 'knex';
import type { UnitOfWork } from '../../unit-of-work';
import { ORDER_STATUS, Order } from '../../../db/models';
import { withdrawOrderCommands } from '../fivem/lifecycle';
import { revokeOrderLicenses } from '../licenses';
import type { MerchantEvent } from '../webhooks/events';
import { transitionPayment } from '../payment-records/audit';
import { voidRenewalLinks } from '../fulfilment/subscription-lifecycle';

export type CancelOutcome = 'cancelled' | 'refunded';

export interface Withdrawal {
  licensesRevoked: number;
  /** license.revoked and subscription.cancelled, for the merchant's webhooks. */
  events: MerchantEvent[];
}

/**
 * What cancelling (5) or refunding (6) takes back, on an order row the caller has locked for update:
 * - every license of the order is revoked (spec, License: cancelled or refunded -> revoked);
 * - its subscriptions are cancelled (and ended: the cancellation took back what the period granted), and
 *   their unpaid renewal links voided;
 * - its FiveM commands not yet executed are withdrawn and the products' `on_refund` commands queued where
 *   something was given (withdrawOrderCommands);
 * - code keys of items never delivered go back on sale (delivered keys stay with the customer);
 * - the status is set; a refund moves a paid payment to refunded with its audit row unless `movePayment`
 *   is false (the refunds service moves it once the money is back).
 */
export async function withdrawOrder(
  uow: UnitOfWork,
  order: { id: number; payment_id: number | null },
  outcome: CancelOutcome,
  now: Date,
  opts: { movePayment?: boolean } = {},
): Promise<Withdrawal> {
  const { trx } = uow;
  const orderId = order.id;
  const revoking = await trx('licenses')
    .where('order_id', orderId)
    .whereNot('status', 'revoked')
    .select('id', 'key', 'status', 'product_id');
  const cancelling = await trx('subscriptions')
    .where('order_id', orderId)
    .whereIn('status', ['active', 'past_due'])
    .select('id', 'product_id', 'plan_id', 'customer_id');

  const target = outcome === 'cancelled' ? ORDER_STATUS.CANCELLED : ORDER_STATUS.REFUNDED;
  await Order.query(trx)
    .patch(
      outcome === 'cancelled' ? { status: target, cancelled_at: now } : { status: target, refunded_at: now },
    )
    .where('id', orderId);
  const licensesRevoked = await revokeOrderLicenses(trx, orderId, now);
  await trx('subscriptions')
    .where('order_id', orderId)
    .whereIn('status', ['active', 'past_due'])
    .update({ status: 'cancelled', cancelled_at: now, ended_at: now, updated_at: now });
  await voidRenewalLinks(
    trx,
    cancelling.map((s: { id: number }) => Number(s.id)),
  );
  await withdrawOrderCommands(trx, orderId, now);
  await trx('product_codes')
    .whereIn(
      'order_item_id',
      trx('order_items').select('id').where('order_id', orderId).whereNull('delivered_at'),
    )
    .update({ status: 'available', order_item_id: null, checkout_id: null, sold_at: null });
  if (outcome === 'refunded' && order.payment_id !== null && opts.movePayment !== false) {
    await transitionPayment(uow, Number(order.payment_id), {
      from: ['paid'],
      to: 'refunded',
      source: 'merchant',
      data: { order_id: orderId },
    });
  }

  const events: MerchantEvent[] = [
    ...revoking.map((l) => ({
      id: `license.revoked:${l.id}`,
      type: 'license.revoked' as const,
      data: {
        license_id: l.id,
        key: l.key,
        product_id: l.product_id,
        order_id: orderId,
        previous_status: l.status,
      },
    })),
    ...cancelling.map((s) => ({
      id: `subscription.cancelled:${s.id}`,
      type: 'subscription.cancelled' as const,
      data: {
        subscription_id: s.id,
        product_id: s.product_id,
        plan_id: s.plan_id,
        customer_id: s.customer_id,
        order_id: orderId,
      },
    })),
  ];
  return { licensesRevoked, events };
}

/** Units of undelivered items of finite-stock products go back to stock; returns how many units. */
export async function returnUndeliveredStock(
  trx: Knex.Transaction,
  orderId: number,
): Promise<{ units: number; productIds: number[] }> {
  const undelivered = await trx('order_items as i')
    .join('products as p', 'p.id', 'i.product_id')
    .where('i.order_id', orderId)
    .whereNull('i.delivered_at')
    .whereNot('p.type', 'code')
    .whereNotNull('p.stock')
    .select<{ product_id: number; quantity: number }[]>('i.product_id', 'i.quantity');
  for (const item of undelivered) {
    await trx('products').where('id', item.product_id).increment('stock', Number(item.quantity));
  }
  return {
    units: undelivered.reduce((n, i) => n + Number(i.quantity), 0),
    productIds: undelivered.map((i) => Number(i.product_id)),
  };
}
