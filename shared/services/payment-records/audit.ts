import type { Knex } from 'knex';
import type { UnitOfWork } from '../../unit-of-work';
import { notePaymentStatusChanged } from './status';
import { Payment, PaymentEvent, PaymentStatus } from '../../../db/models';

/** Who moved a payment: the API (initiation), a worker job, a webhook, the sweep, a return visit, the merchant. */
export type PaymentSource = 'api' | 'worker' | 'webhook' | 'sweep' | 'return' | 'merchant';

/** Columns a transition may set along with the status. */
export type PaymentPatch = Partial<
  Pick<Payment, 'provider_payment_id' | 'provider_url' | 'error_message' | 'paid_at'>
>;

export interface Transition {
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  source: PaymentSource;
  /** Kept in the audit row: provider status words, amounts, reasons. Never credentials. */
  data?: Record<string, unknown>;
  patch?: PaymentPatch;
}

/**
 * Moves a payment to `to` only from one of the `from` statuses, and writes its audit row, in the caller's
 * unit of work (`deps.tx`, shared/unit-of-work.ts), which bumps the status poll's counter after it
 * commits. The row is locked first, so two workers racing on one
 * payment serialise: the second sees the new status and changes nothing. Returns the updated payment, or
 * null when the payment was not in a `from` status (the move was someone else's to make, or already made).
 */
export async function transitionPayment(
  uow: UnitOfWork,
  paymentId: number,
  transition: Transition,
): Promise<Payment | null> {
  const { trx } = uow;
  const current = await Payment.query(trx).findById(paymentId).forUpdate();
  if (!current || !transition.from.includes(current.status)) return null;
  const updated = await Payment.query(trx).patchAndFetchById(paymentId, {
    status: transition.to,
    ...(transition.patch ?? {}),
  });
  await PaymentEvent.query(trx).insert({
    payment_id: paymentId,
    from_status: current.status,
    to_status: transition.to,
    source: transition.source,
    data: transition.data ?? {},
  });
  // The payment status poll shows whether the checkout's payment is paid: its counter moves on commit.
  notePaymentStatusChanged(uow, [updated.checkout_id]);
  return updated;
}

/** The audit row of a payment's creation (no previous status). */
export async function recordCreation(
  trx: Knex,
  payment: Payment,
  source: PaymentSource,
  data: Record<string, unknown> = {},
): Promise<void> {
  await PaymentEvent.query(trx).insert({
    payment_id: payment.id,
    from_status: null,
    to_status: payment.status,
    source,
    data,
  });
}
