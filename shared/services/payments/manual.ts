import { ORDER_STATUS, Order } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { stageJob, StagedJob } from '../../queues/outbox';
import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import { issueInvoiceForOrder } from '../invoices/issue';
import { transitionPayment } from './audit';

export const NOT_UNDER_REVIEW = 'Only an order under review can be confirmed';

/**
 * The money of a manual payment arrived, on an order row the caller has locked (it is Under review): the
 * payment becomes paid with its audit row, the order In progress, with its tax invoice; returns the
 * fulfilment job, written to the outbox with the change, for the caller to `uow.stage` (dispatched once
 * its unit of work has committed).
 */
export async function confirmLockedManualPayment(
  uow: UnitOfWork,
  order: { id: number; payment_id: number | null },
  now: Date = new Date(),
): Promise<StagedJob> {
  const { trx } = uow;
  if (order.payment_id !== null) {
    await transitionPayment(uow, Number(order.payment_id), {
      from: ['pending', 'initiated', 'failed', 'expired'],
      to: 'paid',
      source: 'merchant',
      patch: { paid_at: now, error_message: null },
    });
  }
  await Order.query(trx).patch({ status: ORDER_STATUS.IN_PROGRESS }).where({ id: order.id });
  await issueInvoiceForOrder(trx, order.id);
  return stageJob(
    trx,
    'fulfilment',
    { orderId: order.id, event: 'paid' },
    { jobId: `order-paid-${order.id}` },
  );
}

/**
 * The merchant confirms that a bank transfer or PayPal payment arrived, outside the Merchant API's status
 * change (which runs `confirmLockedManualPayment` as a step of its own unit of work: the order lifecycle,
 * shared/services/orders). One unit of work (`deps.tx`): the fulfilment job is staged in the outbox with
 * the change and dispatched once it has committed. Confirming twice is harmless.
 */
export async function confirmManualPayment(
  deps: TxDeps,
  orderId: number,
): Promise<{ orderId: number; confirmed: boolean }> {
  const confirmed = await deps.tx(async (uow) => {
    const order = await Order.query(uow.trx).findById(orderId).forUpdate();
    if (!order) throw new NotFoundError('Order not found');
    if (order.status !== ORDER_STATUS.UNDER_REVIEW) {
      if (order.status === ORDER_STATUS.IN_PROGRESS || order.status === ORDER_STATUS.COMPLETED) return false;
      throw new InvalidError(NOT_UNDER_REVIEW);
    }
    uow.stage(await confirmLockedManualPayment(uow, order));
    return true;
  });
  return { orderId, confirmed };
}
