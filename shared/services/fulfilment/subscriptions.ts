import type { Knex } from 'knex';
import type { Order, OrderItem, ProductPlan } from '../../../db/models';
import { periodEnd } from '../licenses/periods';

/**
 * A subscription product starts one subscription per order item for the plan's period (monthly +1 month,
 * quarterly +3, yearly +1 year, lifetime open-ended). subscriptions.order_item_id is unique, so a second
 * run finds it there and changes nothing. Returns whether it was created now.
 */
export async function startSubscription(
  knex: Knex,
  order: Pick<Order, 'id' | 'store_id' | 'customer_id'>,
  item: Pick<OrderItem, 'id' | 'product_id'>,
  plan: Pick<ProductPlan, 'id' | 'duration'>,
  now: Date = new Date(),
): Promise<boolean> {
  if (item.product_id === null) return false;
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
    })
    .onConflict('order_item_id')
    .ignore()
    .returning('id');
  return inserted.length > 0;
}
