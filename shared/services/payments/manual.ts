import { ORDER_STATUS, Order } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import type { UnitOfWork } from '../../unit-of-work';
import { issueInvoiceForOrder } from '../invoices/issue';
import { changeOrderStatus, type ChangeStatusDeps } from '../orders/change-status';
import { transitionPayment } from './audit';

export const NOT_UNDER_REVIEW = 'Only an order under review can be confirmed';

/**
 * The money of a manual payment arrived, on an order row the order lifecycle has locked (it is Under
 * review): the payment becomes paid with its audit row, and the order's tax invoice is issued. The
 * `confirm-manual-payment` step of shared/services/orders/steps.ts, which moves the status itself and
 * stages the fulfilment job with the change.
 */
export async function confirmLockedManualPayment(
  uow: UnitOfWork,
  order: { id: number; payment_id: number | null },
  now: Date = new Date(),
): Promise<void> {
  const { trx } = uow;
  if (order.payment_id !== null) {
    await transitionPayment(uow, Number(order.payment_id), {
      from: ['pending', 'initiated', 'failed', 'expired'],
      to: 'paid',
      source: 'merchant',
      patch: { paid_at: now, error_message: null },
    });
  }
  await issueInvoiceForOrder(trx, order.id, now);
}

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
