import { Checkout, Payment, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { isHostedProvider, ProviderRejectedError, ProviderUnavailableError } from '../../providers/types';
import { transitionPayment } from './audit';
import { credentialsFor, PaymentsContext } from './context';
import { PaymentPageRefs } from './page-ref';
import { checkoutTitle } from '../checkout/lines';

/** What the customer reads on the payment page when the provider session could not be created. */
export const PROVIDER_REFUSED_MESSAGE = 'The payment provider refused to start this payment.';
export const PROVIDER_UNAVAILABLE_MESSAGE = 'The payment provider could not be reached.';

export type SessionOutcome = 'created' | 'already-started' | 'not-hosted';

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
  if (payment.status !== 'pending' || payment.provider_payment_id) return 'already-started';
  if (!isHostedProvider(payment.provider)) return 'not-hosted';

  const checkout = await Checkout.query(ctx.knex).findById(payment.checkout_id);
  if (!checkout) throw new NotFoundError(`checkout of payment ${paymentId} does not exist`);
  const [store, title] = await Promise.all([
    Store.query(ctx.knex).findById(payment.store_id),
    checkoutTitle(ctx.knex, checkout),
  ]);
  const description = `${store?.name ?? 'Order'}: ${title.name || 'purchase'} x ${title.quantity}`;
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
      },
      credentials,
    );
  } catch (err) {
    const refused = err instanceof ProviderRejectedError;
    if (refused || (err instanceof ProviderUnavailableError && opts.finalAttempt)) {
      await transitionPayment(ctx.knex, payment.id, {
        from: ['pending'],
        to: 'failed',
        source: 'worker',
        data: { reason: (err as Error).message },
        patch: { error_message: refused ? PROVIDER_REFUSED_MESSAGE : PROVIDER_UNAVAILABLE_MESSAGE },
      });
    }
    throw err;
  }

  const moved = await transitionPayment(ctx.knex, payment.id, {
    from: ['pending'],
    to: 'initiated',
    source: 'worker',
    data: { provider_payment_id: session.providerPaymentId },
    patch: { provider_payment_id: session.providerPaymentId, provider_url: session.redirectUrl },
  });
  if (!moved) {
    ctx.logger.warn({ paymentId }, 'provider session created for a payment that is no longer pending');
  }
  return 'created';
}
