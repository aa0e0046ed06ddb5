import type { Knex } from 'knex';
import { OrderItem, ProductPlan } from '../../../db/models';
import type { Order } from '../../../db/models';
import { periodEnd } from '../licenses/periods';
import { applyPaidRenewal } from './subscription-lifecycle';
import { unitOfWork, type UnitOfWorkDeps } from '../../unit-of-work';

/**
 * A subscription product starts one subscription per order item for the plan's period (monthly +1 month,
 * quarterly +3, yearly +1 year, lifetime open-ended). subscriptions.order_item_id is unique, so a second
 * run finds it there and changes nothing. Returns whether it was created now.
 *
 * How it renews comes with it: the order's payment method and provider, and the card token the provider
 * saved with that payment (still encrypted: it moves from the payment row to the subscription as is).
 * Without a token (bank, PayPal, crypto, a provider that cannot save cards) renewals go by payment link.
 */
export async function startSubscription(
  knex: Knex,
  order: Pick<Order, 'id' | 'store_id' | 'customer_id'> &
    Partial<Pick<Order, 'payment_id' | 'payment_method'>>,
  item: Pick<OrderItem, 'id' | 'product_id'>,
  plan: Pick<ProductPlan, 'id' | 'duration' | 'price_minor'>,
  now: Date = new Date(),
): Promise<boolean> {
  if (item.product_id === null) return false;
  const payment =
    order.payment_id != null
      ? await knex('payments')
          .where('id', order.payment_id)
          .first<{ method: string; provider: string; saved_token_encrypted: string | null } | undefined>(
            'method',
            'provider',
            'saved_token_encrypted',
          )
      : undefined;
  // The price the buyer agreed to: the plan's unit price on the checkout they paid (paid add-ons are not
  // renewed), in the order's currency (docs/subscriptions.md, "The price a subscriber agreed to").
  const bought = await knex('orders as o')
    .leftJoin('checkouts as c', 'c.id', 'o.checkout_id')
    .where('o.id', order.id)
    .first<{ unit_price_minor: string | number | null; currency: string } | undefined>(
      'o.currency',
      knex.raw(
        `coalesce(
           (select ci.unit_price_minor from checkout_items ci
             where ci.checkout_id = c.id and ci.plan_id = ? order by ci.position limit 1),
           case when c.plan_id = ? then c.unit_price_minor end) as unit_price_minor`,
        [plan.id, plan.id],
      ),
    );
  const inserted = await knex('subscriptions')
    .insert({
      store_id: order.store_id,
      customer_id: order.customer_id,
      product_id: item.product_id,
      plan_id: plan.id,
      order_id: order.id,
      order_item_id: item.id,
      status: 'active',
      current_period_start: now,
      current_period_end: periodEnd(now, plan.duration),
      payment_method: payment?.method ?? order.payment_method ?? null,
      provider: payment?.provider ?? null,
      payment_token_encrypted: payment?.saved_token_encrypted ?? null,
      price_minor:
        bought?.unit_price_minor != null ? Number(bought.unit_price_minor) : Number(plan.price_minor),
      currency: bought?.currency ?? null,
    })
    .onConflict('order_item_id')
    .ignore()
    .returning('id');
  return inserted.length > 0;
}

/**
 * Starts the subscriptions of a paid order inside the transaction that marks it paid, so the order and
 * its subscription appear together (the Merchant API shows `subscription_id` as soon as the order exists);
 * fulfilment runs startSubscription again later and finds them there. A renewal's order starts nothing.
 */
export async function startOrderSubscriptions(
  trx: Knex.Transaction,
  order: Pick<Order, 'id' | 'store_id' | 'customer_id' | 'payment_id' | 'payment_method' | 'source'>,
  now: Date = new Date(),
): Promise<number> {
  if (order.source === 'renewal') return 0;
  let started = 0;
  const items = await OrderItem.query(trx)
    .where({ order_id: order.id, type: 'subscription' })
    .whereNotNull('plan_id')
    .orderBy('id');
  for (const item of items) {
    const plan = await ProductPlan.query(trx).findById(item.plan_id!);
    if (plan && (await startSubscription(trx, order, item, plan, now))) started += 1;
  }
  return started;
}

/**
 * The order of a subscription's renewal (its checkout is the renewal's) is paid, however it was paid (the
 * saved card, or the buyer by hand through the link): the subscription moves on. Safe to run again: a
 * renewal already applied changes nothing. Its events (the merchant's webhook, the buyer's message) are
 * emitted in the unit of work that applies it.
 */
export async function applyRenewalOrder(
  deps: UnitOfWorkDeps,
  order: Pick<Order, 'id' | 'checkout_id'>,
  now: Date = new Date(),
): Promise<void> {
  if (order.checkout_id === null) return;
  const renewal = await deps
    .knex('subscription_renewals')
    .where('checkout_id', order.checkout_id)
    .first<{ id: number; subscription_id: number } | undefined>('id', 'subscription_id');
  if (!renewal) return;
  await unitOfWork(deps, (uow) => applyPaidRenewal(uow, renewal.id, order, now));
}
