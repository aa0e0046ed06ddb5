import { ORDER_STATUS, Order } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { dispatchAfterCommit, OutboxDeps, stageJob, StagedJob } from '../../queues/outbox';
import { issueInvoiceForOrder } from '../invoices/issue';
import { transitionPayment } from './audit';

export const NOT_UNDER_REVIEW = 'Only an order under review can be confirmed';

/**
 * The merchant confirms that a bank transfer or PayPal payment arrived (the Merchant API calls this when
 * an order under review is accepted). The payment becomes paid and the order In progress in one
 * transaction (with its tax invoice); fulfilment then runs as for any paid order (keys, licenses, Completed for digital goods).
 * Confirming twice is harmless.
 */
export async function confirmManualPayment(
  deps: OutboxDeps,
  orderId: number,
): Promise<{ orderId: number; confirmed: boolean }> {
  const staged: StagedJob[] = [];
  const confirmed = await deps.knex.transaction(async (trx) => {
    const order = await Order.query(trx).findById(orderId).forUpdate();
    if (!order) throw new NotFoundError('Order not found');
    if (order.status !== ORDER_STATUS.UNDER_REVIEW) {
      if (order.status === ORDER_STATUS.IN_PROGRESS || order.status === ORDER_STATUS.COMPLETED) return false;
      throw new InvalidError(NOT_UNDER_REVIEW);
    }
    if (order.payment_id !== null) {
      await transitionPayment(trx, order.payment_id, {
        from: ['pending', 'initiated', 'failed', 'expired'],
        to: 'paid',
        source: 'merchant',
        patch: { paid_at: new Date(), error_message: null },
      });
    }
    await Order.query(trx).patch({ status: ORDER_STATUS.IN_PROGRESS }).where({ id: order.id });
    await issueInvoiceForOrder(trx, order.id);
    staged.push(
      await stageJob(trx, 'fulfilment', { orderId, event: 'paid' }, { jobId: `order-paid-${orderId}` }),
    );
    return true;
  });
  // After the commit of the caller's transaction when there is one (deps.knex may be it): a confirmation
  // rolled back with the caller's work starts no fulfilment.
  await dispatchAfterCommit(deps, deps.knex, staged);
  return { orderId, confirmed };
}
