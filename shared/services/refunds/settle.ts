import type { UnitOfWork } from '../../unit-of-work';
import { OPEN_REFUND_STATES, Refund } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { PaymentSource, transitionPayment } from '../payment-records/audit';
import { REFUND_SUCCEEDED_HOOKS } from './succeeded';
import { commissionEvent, reverseCommissionForRefund } from '../growth/creator-ledger';
import { refundView } from './view';

export type RefundSettlement =
  | { status: 'succeeded'; providerRefundId?: string | null; providerStatus: string }
  | { status: 'failed'; providerStatus?: string | null; failureReason: string };

/**
 * Moves an open refund (requested or sent) to its end, in the caller's unit of work: succeeded (the money is back: the
 * payment becomes refunded once its refunds cover it, and the REFUND_SUCCEEDED_HOOKS run) or failed (the
 * provider refused it: its amount is refundable again). Emits `refund.succeeded` or `refund.failed`. A refund
 * that is not pending any more is answered as it is.
 */
export async function settleRefund(
  uow: UnitOfWork,
  refundId: number,
  settlement: RefundSettlement,
  source: PaymentSource,
  now: Date = new Date(),
): Promise<Refund> {
  const { trx } = uow;
  const current = await Refund.query(trx).findById(refundId).forUpdate();
  if (!current) throw new NotFoundError(`refund ${refundId} does not exist`);
  if (!OPEN_REFUND_STATES.includes(current.status)) return current;

  const refund =
    settlement.status === 'succeeded'
      ? await Refund.query(trx).patchAndFetchById(refundId, {
          status: 'succeeded',
          provider_refund_id: settlement.providerRefundId ?? current.provider_refund_id,
          provider_status: settlement.providerStatus,
          failure_reason: null,
          succeeded_at: now,
        })
      : await Refund.query(trx).patchAndFetchById(refundId, {
          status: 'failed',
          provider_status: settlement.providerStatus ?? current.provider_status,
          failure_reason: settlement.failureReason.slice(0, 500),
          failed_at: now,
        });

  if (refund.status === 'succeeded') {
    const payment = await trx('payments').where('id', refund.payment_id).first();
    const back = await trx('refunds')
      .where({ payment_id: refund.payment_id, status: 'succeeded' })
      .sum<{ total: number | null }>('amount_minor as total')
      .first();
    const refunded = Number(back?.total ?? 0);
    if (payment && refunded >= Number(payment.amount_minor)) {
      await transitionPayment(uow, refund.payment_id, {
        from: ['paid'],
        to: 'refunded',
        source,
        data: { refund_id: refund.id, refunded_minor: refunded },
      });
    }
    for (const hook of REFUND_SUCCEEDED_HOOKS) await hook(trx, refund, now);
    // The creator's commission of the order, in proportion, with its event (docs/growth.md).
    const reversal = await reverseCommissionForRefund(trx, refund);
    if (reversal) await uow.emit(commissionEvent(reversal));
  }

  // Its subscribers: the merchant's webhook, and the buyer's message once the money is back.
  const type = refund.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed';
  await uow.emit({
    type,
    id: `${type}:${refund.id}`,
    storeId: refund.store_id,
    data: { ...refundView(refund) },
    at: now,
  });
  return refund;
}
