import type { PlatformEvent } from '../../events/types';
import { formatMoney } from '../../money';
import { isTransientDependencyError } from '../../dependency-errors';
import { unitOfWork, type UnitOfWorkDeps } from '../../unit-of-work';

/**
 * The merchant events that follow an order's fulfilment job (free orders, paid orders, confirmed manual
 * payments): order.created, order.paid once it is paid (In progress or Completed), subscription.created
 * for each subscription it started. Event ids are deterministic (order.created:42), so the job running
 * twice, or the Merchant API having emitted order.paid already, delivers each event once.
 */
export async function emitFulfilmentEvents(
  deps: UnitOfWorkDeps & { logger: { error(o: object, m: string): void } },
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
    const storeId = Number(order.store_id);
    const events: PlatformEvent[] = [
      { id: `order.created:${order.id}`, type: 'order.created', storeId, data: summary },
    ];
    if (order.status === 3 || order.status === 4) {
      events.push({ id: `order.paid:${order.id}`, type: 'order.paid', storeId, data: summary });
    }
    const subscriptions = await knex('subscriptions')
      .where('order_id', order.id)
      .select('id', 'product_id', 'plan_id');
    for (const s of subscriptions) {
      events.push({
        id: `subscription.created:${s.id}`,
        type: 'subscription.created',
        storeId,
        data: { subscription_id: s.id, product_id: s.product_id, plan_id: s.plan_id, order_id: order.id },
      });
    }
    // The deliveries and their jobs are written together (shared/queues/outbox.ts): a delivery recorded
    // while Redis was out is enqueued by the relay, not lost (a re-run records nothing new).
    await unitOfWork(deps, async (uow) => {
      for (const event of events) await uow.emit(event);
    });
  } catch (err) {
    // Postgres out of reach: the fulfilment job is deferred and runs again (it is safe to run twice).
    if (isTransientDependencyError(err)) throw err;
    deps.logger.error({ err, orderId }, 'could not emit merchant webhook events of an order');
  }
}
