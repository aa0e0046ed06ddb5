import { ORDER_STATUS, Order } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { changeOrderStatus, type ChangeStatusDeps } from '../orders/change-status';

export const NOT_UNDER_REVIEW = 'Only an order under review can be confirmed';

/**
 * The merchant confirms that a bank transfer or PayPal payment arrived: Under review -> In progress through
 * the order lifecycle (shared/services/orders/change-status.ts), with its status event, its webhook events
 * and the fulfilment job staged with the change. Confirming twice is harmless.
 */
export async function confirmManualPayment(
  deps: ChangeStatusDeps,
  orderId: number,
): Promise<{ orderId: number; confirmed: boolean }> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order) throw new NotFoundError('Order not found');
  const change = await changeOrderStatus(deps, order.store_id, orderId, ORDER_STATUS.IN_PROGRESS, {
    actor: { kind: 'merchant', merchantTokenId: null },
    onlyFrom: [ORDER_STATUS.UNDER_REVIEW],
  });
  if (change.changed) return { orderId, confirmed: true };
  if (change.status === ORDER_STATUS.IN_PROGRESS || change.status === ORDER_STATUS.COMPLETED) {
    return { orderId, confirmed: false };
  }
  throw new InvalidError(NOT_UNDER_REVIEW);
}
