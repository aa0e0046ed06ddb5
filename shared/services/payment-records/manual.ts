import type { UnitOfWork } from '../../unit-of-work';
import { issueInvoiceForOrder } from '../invoices/issue';
import { transitionPayment } from './audit';

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
