import { OPEN_REFUND_STATES, Payment, Refund } from '../../../db/models';
import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import type { Cipher } from '../../crypto';
import { NotFoundError } from '../../errors';
import { isRefundingProvider, ProviderRejectedError } from '../../providers/types';
import { credentialsFor } from '../payment-records/credentials';
import type { RefundDeps } from './create';
import { settleRefund } from './settle';

export type SendOutcome =
  | { outcome: 'succeeded'; replayed: boolean }
  | { outcome: 'failed'; reason: string }
  | { outcome: 'already-succeeded' | 'already-failed' | 'manual' };

/**
 * What follows a refund's success on the order's side, in the unit of work that settled it (so once per
 * refund): the orders domain's withdrawal (shared/services/orders/refund.ts, `sendRefundAndWithdraw`).
 * Handed in, so that the refunds domain never imports the orders domain, which imports it.
 */
export type AfterRefundSucceeded = (uow: UnitOfWork, refund: Refund, now: Date) => Promise<unknown>;

/**
 * A refund that cannot be sent yet: an older refund of the same payment is still pending. Refunds of one
 * payment go to the provider one at a time, oldest first, which is what lets the Moyasar adapter tell a
 * lost answer from a refund never made. The job is retried.
 */
export class RefundQueuedBehindError extends Error {
  readonly code = 'REFUND_QUEUED_BEHIND';

  constructor(refundId: number, earlierId: number) {
    super(`refund ${refundId} waits for refund ${earlierId} of the same payment`);
    this.name = 'RefundQueuedBehindError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * The `refund` job of the payments queue: sends one open provider refund (`requested`, or `sent` with no
 * final answer yet) and records the answer; before asking the provider the refund becomes `sent` (and
 * stays so through outages). Safe to run any number of times, at once, and after a lost answer:
 *
 * - the refund row is locked and re-read: only an open refund is sent, and settled once;
 * - a transaction-scoped advisory lock on the payment keeps one refund of a payment in flight at a time;
 * - the provider gets the refund's own idempotency key (the sandbox honours it; the Moyasar adapter reads
 *   the payment's refunded total first), so a repeat answers the first refund instead of making another;
 * - a provider outage (timeout, 5xx, 429) rolls back and is thrown: the refund stays pending and BullMQ
 *   retries with back-off; a refusal (4xx) fails the refund, whose amount becomes refundable again.
 *
 * The provider call runs while the locks are held: refunds are rare and the call has the provider
 * timeout, and a crash in between leaves nothing half-done (the provider's side is found on the retry).
 */
export async function sendRefund(
  deps: RefundDeps & TxDeps & { cipher: Cipher },
  refundId: number,
  afterSucceeded: AfterRefundSucceeded,
  now: () => Date = () => new Date(),
): Promise<SendOutcome> {
  const refund = await Refund.query(deps.knex).findById(refundId);
  if (!refund) throw new NotFoundError(`refund ${refundId} does not exist`);
  if (refund.status === 'succeeded' || refund.status === 'failed')
    return { outcome: `already-${refund.status}` };
  if (refund.kind === 'manual') return { outcome: 'manual' };
  const payment = await Payment.query(deps.knex).findById(refund.payment_id);
  if (!payment) throw new NotFoundError(`payment of refund ${refundId} does not exist`);

  const adapter = (deps.providers as Readonly<Record<string, unknown>>)[payment.provider];
  let outcome: SendOutcome;
  try {
    if (!isRefundingProvider(adapter) || !payment.provider_payment_id) {
      throw new ProviderRejectedError(payment.provider, 'this provider has no refund API');
    }
    const credentials = await credentialsFor(deps, payment);
    // Behind an older open refund of the payment: not sent now, so not marked sent.
    const ahead = await deps
      .knex('refunds')
      .where({ payment_id: payment.id, kind: 'provider' })
      .whereIn('status', OPEN_REFUND_STATES)
      .where('id', '<', refundId)
      .first<{ id: number } | undefined>('id');
    if (ahead) throw new RefundQueuedBehindError(refundId, ahead.id);
    // requested -> sent, committed before the call: a call whose answer is lost was still made.
    await deps
      .knex('refunds')
      .where('id', refundId)
      .whereIn('status', OPEN_REFUND_STATES)
      .update({ status: 'sent', attempts: deps.knex.raw('attempts + 1'), updated_at: now() });
    outcome = await deps.tx(async (uow): Promise<SendOutcome> => {
      const { trx } = uow;
      await trx.raw('select pg_advisory_xact_lock(hashtext(?), ?)', ['refunds', payment.id]);
      const current = await Refund.query(trx).findById(refundId).forUpdate();
      if (!current || !OPEN_REFUND_STATES.includes(current.status)) {
        return { outcome: current?.status === 'failed' ? 'already-failed' : 'already-succeeded' };
      }
      const earlier = await trx('refunds')
        .where({ payment_id: payment.id, kind: 'provider' })
        .whereIn('status', OPEN_REFUND_STATES)
        .where('id', '<', refundId)
        .first<{ id: number } | undefined>('id');
      if (earlier) throw new RefundQueuedBehindError(refundId, earlier.id);
      const before = await trx('refunds')
        .where({ payment_id: payment.id, kind: 'provider', status: 'succeeded' })
        .sum<{ total: number | null }>('amount_minor as total')
        .first();
      const answer = await adapter.refundPayment(
        {
          providerPaymentId: payment.provider_payment_id!,
          amountMinor: Number(current.amount_minor),
          currency: current.currency,
          idempotencyKey: current.idempotency_key,
          refundedBeforeMinor: Number(before?.total ?? 0),
          reason: current.reason,
        },
        credentials,
      );
      if (answer.status === 'pending') {
        // Asked again on the retry, with the same key, so nothing is sent twice.
        throw new Error(`refund ${refundId} is still pending at ${payment.provider}`);
      }
      if (answer.status === 'failed') {
        await settleRefund(
          uow,
          refundId,
          {
            status: 'failed',
            providerStatus: answer.providerStatus,
            failureReason: 'The provider declined the refund.',
          },
          'worker',
          now(),
        );
        return { outcome: 'failed', reason: 'declined' };
      }
      const settled = await settleRefund(
        uow,
        refundId,
        {
          status: 'succeeded',
          providerRefundId: answer.providerRefundId,
          providerStatus: answer.providerStatus,
        },
        'worker',
        now(),
      );
      // The money is back: now, and only now, a refund that takes the goods back takes them (the refund
      // row was open under its lock, so this happens once).
      await afterSucceeded(uow, settled, now());
      return { outcome: 'succeeded', replayed: answer.replayed };
    });
  } catch (err) {
    if (!(err instanceof ProviderRejectedError)) throw err;
    // Refused as made: no retry can change that. The merchant hears of it and may refund again.
    await deps.tx((uow) =>
      settleRefund(uow, refundId, { status: 'failed', failureReason: err.message }, 'worker', now()),
    );
    outcome = { outcome: 'failed', reason: err.message };
  }
  return outcome;
}
