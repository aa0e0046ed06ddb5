import type { Knex } from 'knex';
import type { Logger } from '../../../logger';
import type { Queues } from '../../../queues';
import { formatMoney } from '../../../money';
import { dispatchDeliveries, MerchantEvent, recordMerchantEvent } from './events';

/**
 * The merchant events that follow an order's fulfilment job (free orders, paid orders, confirmed manual
 * payments): order.created, order.paid once it is paid (In progress or Completed), subscription.created
 * for each subscription it started. Event ids are deterministic (order.created:42), so the job running
 * twice, or the Merchant API having emitted order.paid already, delivers each event once.
 */
export async function emitFulfilmentEvents(
  deps: { knex: Knex; queues: Queues; logger: Logger; config: { merchantWebhookRetryDelayMs: number } },
  orderId: number,
): Promise<void> {
  try {
    const { knex } = deps;
    const order = await knex('orders').where('id', orderId).first();
    if (!order) return;
    const hooks = await knex('merchant_webhook_endpoints').where('store_id', order.store_id).first('id');
    if (!hooks) return;
    const summary = {
      order_id: order.id,
      status: order.status,
      total: formatMoney(Number(order.total_minor), order.currency),
      currency: order.currency,
      source: order.source,
    };
    const events: MerchantEvent[] = [
      { id: `order.created:${order.id}`, type: 'order.created', data: summary },
    ];
    if (order.status === 3 || order.status === 4) {
      events.push({ id: `order.paid:${order.id}`, type: 'order.paid', data: summary });
    }
    const subscriptions = await knex('subscriptions')
      .where('order_id', order.id)
      .select('id', 'product_id', 'plan_id');
    for (const s of subscriptions) {
      events.push({
        id: `subscription.created:${s.id}`,
        type: 'subscription.created',
        data: { subscription_id: s.id, product_id: s.product_id, plan_id: s.plan_id, order_id: order.id },
      });
    }
    const ids: number[] = [];
    for (const event of events) ids.push(...(await recordMerchantEvent(knex, Number(order.store_id), event)));
    await dispatchDeliveries(deps, ids);
  } catch (err) {
    deps.logger.error({ err, orderId }, 'could not emit merchant webhook events of an order');
  }
}
