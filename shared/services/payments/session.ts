import { Checkout, Order, Payment, PaymentStatus, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { isHostedProvider, ProviderRejectedError, ProviderUnavailableError } from '../../providers/types';
import { transitionPayment } from '../payment-records/audit';
import { credentialsFor } from '../payment-records/credentials';
import type { PaymentsContext } from './context';
import { PaymentPageRefs } from './page-ref';
import { checkoutTitle } from '../checkout-records/lines';
import { isCardMethod, recurringPlanOf } from '../subscriptions/plans';

/** What the customer reads on the payment page when the provider session could not be created. */
export const PROVIDER_REFUSED_MESSAGE = 'The payment provider refused to start this payment.';
export const PROVIDER_UNAVAILABLE_MESSAGE = 'The payment provider could not be reached.';

/**
 * What the job did, as the queue dashboard shows it: `created` when it opened the provider session, else a
 * sentence saying why there was nothing left to do.
 */
export type SessionOutcome = 'created' | `nothing to do: ${string}`;

/** The messages this job writes when it fails a payment: only such a payment may be revived by a retry. */
const OWN_FAILURES: readonly (string | null)[] = [PROVIDER_REFUSED_MESSAGE, PROVIDER_UNAVAILABLE_MESSAGE];

/**
 * Why a payment the job failed must stay failed, or null when a retry may open its session after all: the
 * checkout is still payable (no order, not expired) and no newer payment of it took over.
 */
async function whyNotRevive(ctx: PaymentsContext, payment: Payment, now: Date): Promise<string | null> {
  const checkout = await Checkout.query(ctx.knex).findById(payment.checkout_id);
  if (!checkout) return 'its checkout no longer exists';
  if (await Order.query(ctx.knex).findOne({ checkout_id: checkout.id }))
    return 'the checkout already has its order';
  const open = checkout.status === 'created' || checkout.status === 'payment_initiated';
  if (!open || new Date(checkout.expires_at) <= now)
    return 'the checkout can no longer be paid (expired or closed)';
  const newer = await Payment.query(ctx.knex)
    .where('checkout_id', checkout.id)
    .where('id', '>', payment.id)
    .first();
  if (newer) return `the customer started payment ${newer.id} for this checkout since`;
  return null;
}

/**
 * The `payments` initiate job: opens the provider's hosted payment for a pending payment and records its
 * id and address (pending -> initiated). Safe to run twice: a payment that is no longer pending, or already
 * has a session, is left alone.
 *
 * A refusal by the provider (bad credentials, invalid request) fails the payment at once; an outage is
 * retried by the queue and fails the payment on the last attempt. Either way the payment page then shows
 * the error with a Retry button, and the error is rethrown so the job's failure is visible.
 */
export async function createProviderSession(
  ctx: PaymentsContext,
  paymentId: number,
  opts: { finalAttempt: boolean },
): Promise<SessionOutcome> {
  const payment = await Payment.query(ctx.knex).findById(paymentId);
  if (!payment) throw new NotFoundError(`payment ${paymentId} does not exist`);
  if (payment.provider_payment_id) {
    return `nothing to do: the provider session is open (${payment.provider} ${payment.provider_payment_id}, payment ${payment.status})`;
  }
  if (!isHostedProvider(payment.provider)) {
    return `nothing to do: ${payment.provider} is paid without a provider session`;
  }
  // A retry from the dashboard after this job failed the payment (provider down or refusing): open the
  // session after all, unless the customer has moved on. Any other status was reached by someone else.
  const revivable = payment.status === 'failed' && OWN_FAILURES.includes(payment.error_message);
  if (payment.status !== 'pending' && !revivable) return `nothing to do: the payment is ${payment.status}`;
  if (revivable) {
    const why = await whyNotRevive(ctx, payment, new Date());
    if (why) return `nothing to do: the payment failed and ${why}`;
  }
  const from: PaymentStatus[] = revivable ? ['failed'] : ['pending'];

  const checkout = await Checkout.query(ctx.knex).findById(payment.checkout_id);
  if (!checkout) throw new NotFoundError(`checkout of payment ${paymentId} does not exist`);
  const [store, title] = await Promise.all([
    Store.query(ctx.knex).findById(payment.store_id),
    checkoutTitle(ctx.knex, checkout),
  ]);
  const description = `${store?.name ?? 'Order'}: ${title.name || 'purchase'} x ${title.quantity}`;
  // A recurring subscription paid by card keeps the card (as the provider's token) for its renewals.
  const saveCard = isCardMethod(payment.method) && (await recurringPlanOf(ctx.knex, checkout)) !== null;
  const refs = new PaymentPageRefs(ctx.appSecret);

  let session;
  try {
    const credentials = await credentialsFor(ctx, payment);
    session = await ctx.providers[payment.provider].createHostedPayment(
      {
        paymentId: payment.id,
        checkoutId: checkout.id,
        storeId: payment.store_id,
        method: payment.method,
        amountMinor: payment.amount_minor,
        currency: payment.currency,
        description,
        returnUrl: refs.url(ctx.config.publicBaseUrl, payment.id, { returning: true }),
        expiresAt: new Date(checkout.expires_at),
        saveCard,
      },
      credentials,
    );
  } catch (err) {
    const refused = err instanceof ProviderRejectedError;
    if (!revivable && (refused || (err instanceof ProviderUnavailableError && opts.finalAttempt))) {
      await ctx.tx((uow) =>
        transitionPayment(uow, payment.id, {
          from: ['pending'],
          to: 'failed',
          source: 'worker',
          data: { reason: (err as Error).message },
          patch: { error_message: refused ? PROVIDER_REFUSED_MESSAGE : PROVIDER_UNAVAILABLE_MESSAGE },
        }),
      );
    }
    throw err;
  }

  const moved = await ctx.tx((uow) =>
    transitionPayment(uow, payment.id, {
      from,
      to: 'initiated',
      source: 'worker',
      data: { provider_payment_id: session.providerPaymentId, ...(revivable ? { retried: true } : {}) },
      patch: {
        provider_payment_id: session.providerPaymentId,
        provider_url: session.redirectUrl,
        error_message: null,
      },
    }),
  );
  if (!moved) {
    ctx.logger.warn({ paymentId }, 'provider session created for a payment that is no longer pending');
  }
  return 'created';
}
