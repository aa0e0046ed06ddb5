import { ORDER_STATUS, Order, OrderItem, OrderStatus, Product, ProductPlan } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { enqueue, JobPayloads } from '../../queues';
import {
  activateOrderLicenses,
  generateItemLicenses,
  noteOrderLicensesChanged,
  revokeOrderLicenses,
} from '../licenses';
import { changeOrderStatus, type ChangeStatusDeps } from '../orders/change-status';
import { isDigital, isFulfillable, statusAfterFulfilment } from './rules';
import { applyRenewalOrder, startSubscription } from './subscriptions';

export type FulfilmentEvent = JobPayloads['fulfilment']['event'];

/** The process's deps: the order lifecycle's (it completes an order through changeOrderStatus). */
export type FulfilmentDeps = ChangeStatusDeps;

export interface FulfilmentResult {
  orderId: number;
  status: OrderStatus;
  skipped?: 'not-paid' | 'closed';
  licensesGenerated: number;
  licensesActivated: number;
  subscriptionsStarted: number;
  fivem: boolean;
  delivery: boolean;
}

/**
 * The `fulfilment` job, for every order event (free orders from checkout, paid orders from reconciliation,
 * manual payments confirmed by the merchant, a service completed by the merchant). It brings the order's
 * fulfilment in line with its status, so it is safe to run twice and in any order:
 *
 * 1. license products get one key per unit (generated); subscription products start their subscription;
 * 2. digital goods complete the order (In progress -> Completed, a conditional update); services stay
 *    In progress for the merchant;
 * 3. once the order is Completed its licenses become active with the plan's expiry;
 * 4. FiveM commands go to the store's queue (`fivem` job) and the keys to the customer (`messages` job),
 *    each under a deterministic job id.
 *
 * Orders not paid yet (Awaiting payment, Under review) are left alone; cancelled and refunded orders only
 * get their licenses revoked (what cancelOrder did already, repeated harmlessly).
 */
export async function fulfilOrder(
  deps: FulfilmentDeps,
  orderId: number,
  event: FulfilmentEvent,
  now: Date = new Date(),
): Promise<FulfilmentResult> {
  const { knex } = deps;
  const order = await Order.query(knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  const result: FulfilmentResult = {
    orderId,
    status: order.status,
    licensesGenerated: 0,
    licensesActivated: 0,
    subscriptionsStarted: 0,
    fivem: false,
    delivery: false,
  };
  if (order.status === ORDER_STATUS.CANCELLED || order.status === ORDER_STATUS.REFUNDED) {
    if ((await revokeOrderLicenses(knex, orderId, now)) > 0) await noteOrderLicensesChanged(deps, orderId);
    return { ...result, skipped: 'closed' };
  }
  if (!isFulfillable(order.status)) return { ...result, skipped: 'not-paid' };

  // The owners hear of each new paid order once (the job id, and the notice's send keys, dedupe re-runs);
  // no transaction exists here, as below.
  await enqueue(
    deps.queues,
    'messages',
    { kind: 'order_notice', orderId },
    { jobId: `order-notice-${orderId}` },
  );
  const items = await OrderItem.query(knex).where('order_id', orderId).orderBy('id');
  // A subscription's renewal order extends the subscription (and its licenses) instead of starting anew.
  const renewal = order.source === 'renewal';
  if (renewal) await applyRenewalOrder(deps, order, now);
  const digital: boolean[] = [];
  let hasCommands = false;
  for (const item of items) {
    const product =
      item.product_id === null ? null : ((await Product.query(knex).findById(item.product_id)) ?? null);
    digital.push(isDigital(item, product));
    if (!product) continue;
    if (product.license_enabled && !renewal)
      result.licensesGenerated += await generateItemLicenses(knex, order, item, product);
    if (item.type === 'subscription' && item.plan_id !== null && !renewal) {
      const plan = await ProductPlan.query(knex).findById(item.plan_id);
      if (plan && (await startSubscription(knex, order, item, plan, now))) result.subscriptionsStarted += 1;
    }
    const commands = await knex('product_fivem_commands')
      .where({ product_id: product.id, run_on: renewal ? 'renewal' : 'purchase' })
      .count<{ n: number }[]>('* as n');
    if (Number(commands[0]?.n ?? 0) > 0) hasCommands = true;
  }

  if (
    order.status === ORDER_STATUS.IN_PROGRESS &&
    statusAfterFulfilment(digital) === ORDER_STATUS.COMPLETED
  ) {
    // Through the order lifecycle (its status event and order.status_changed), only while the order is
    // still In progress: a merchant who cancelled it meanwhile wins.
    const change = await changeOrderStatus(deps, order.store_id, orderId, ORDER_STATUS.COMPLETED, {
      actor: { kind: 'system' },
      reason: 'fulfilled',
      onlyFrom: [ORDER_STATUS.IN_PROGRESS],
      fulfilling: true,
      now,
    });
    result.licensesActivated += change.licenses_activated;
  }
  const current = (await Order.query(knex).findById(orderId))?.status ?? order.status;
  result.status = current;
  if (current === ORDER_STATUS.COMPLETED) {
    result.licensesActivated += await activateOrderLicenses(knex, orderId, now);
    if (result.licensesActivated > 0) await noteOrderLicensesChanged(deps, orderId);
  }

  if (hasCommands) {
    // The fulfilment job writes with single statements: no transaction exists; the job id dedupes a re-run.
    await enqueue(deps.queues, 'fivem', { orderId }, { jobId: `fivem-${orderId}` });
    result.fivem = true;
  }
  // Keys go out once the order is complete (licenses active); a service's keys wait for the merchant.
  if (current === ORDER_STATUS.COMPLETED) {
    // As above: no transaction exists here; the job id dedupes a re-run.
    await enqueue(
      deps.queues,
      'messages',
      { kind: 'order_delivery', orderId },
      { jobId: `order-delivery-${orderId}` },
    );
    result.delivery = true;
  }
  deps.logger.debug({ orderId, event, status: current }, 'order fulfilled');
  return result;
}
