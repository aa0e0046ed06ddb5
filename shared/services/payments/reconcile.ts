import type { UnitOfWork } from '../../unit-of-work';
import { Checkout, ORDER_STATUS, Order, Payment } from '../../../db/models';
import { formatMoney } from '../../money';
import { NotFoundError } from '../../errors';
import { isHostedProvider } from '../../providers/types';
import { enqueueFulfilment } from '../fulfilment/enqueue';
import { startOrderSubscriptions } from '../fulfilment/subscriptions';
import { changeOrderStatus } from '../orders/change-status';
import { createOrderFromCheckout } from '../orders/create-from-checkout';
import { assessPaidOrder } from '../fraud/risk';
import { PaymentSource, transitionPayment } from '../payment-records/audit';
import { credentialsFor } from '../payment-records/credentials';
import type { PaymentsContext } from './context';
import { addRefund, SOLD_OUT_REASON } from '../refunds/create';

export type ReconcileOutcome =
  | { outcome: 'paid'; orderId: number; orderCreated: boolean }
  | { outcome: 'sold-out'; orderId: number; refundId: number | null }
  | { outcome: 'already-paid'; orderId: number | null }
  | { outcome: 'failed' | 'pending' | 'amount-mismatch' | 'no-session' | 'manual' };

/** Statuses a confirmed payment may still be moved from: a late confirmation wins over a failure or expiry. */
const PAYABLE_FROM = ['pending', 'initiated', 'failed', 'expired'] as const;

/**
 * Brings one payment in line with what its provider says, whatever prompted the check (a webhook, the
 * sweep, the customer's return). The provider is always asked: a webhook or a redirect only names the
 * payment. Safe to run any number of times, at once:
 *
 * - paid, with the checkout's amount and currency: in ONE transaction the payment moves to paid (from any
 *   status but paid, the row locked first), the order is created from the checkout (one per checkout: the
 *   checkout row is locked and orders.checkout_id is unique), which counts the coupon use and sells the
 *   reserved keys. Fulfilment is enqueued after the commit under a deterministic job id, so a worker that
 *   dies in between only delays it: the retry finds the payment paid and enqueues it again.
 * - failed (declined, expired, cancelled): the payment is marked failed; the checkout stays payable and the
 *   customer may start another payment.
 * - paid, but the checkout's hold had lapsed and its keys or stock were sold to others meanwhile: nobody
 *   pays for goods that are not there. The payment is paid and its order is placed Cancelled with
 *   nothing taken (createOrderFromCheckout, `onSoldOut: 'cancel'`), and a refund of the whole payment is
 *   added in the same transaction (reason `sold_out`): the provider is asked by the refund job, and once it
 *   has succeeded the buyer is told (shared/services/refunds/notify.ts), naming why.
 * - pending: nothing changes; a webhook or the sweep will ask again.
 */
export async function reconcilePayment(
  ctx: PaymentsContext,
  paymentId: number,
  source: PaymentSource,
): Promise<ReconcileOutcome> {
  const payment = await Payment.query(ctx.knex).findById(paymentId);
  if (!payment) throw new NotFoundError(`payment ${paymentId} does not exist`);
  if (payment.status === 'paid') {
    const order = await Order.query(ctx.knex).findOne({ checkout_id: payment.checkout_id });
    if (order) await enqueueFulfilment(ctx.queues, order.id);
    return { outcome: 'already-paid', orderId: order?.id ?? null };
  }
  if (!isHostedProvider(payment.provider)) return { outcome: 'manual' };
  if (!payment.provider_payment_id) return { outcome: 'no-session' };

  const credentials = await credentialsFor(ctx, payment);
  const state = await ctx.providers[payment.provider].fetchPayment(payment.provider_payment_id, credentials);
  const audit = { provider_status: state.providerStatus };

  if (state.status === 'pending') return { outcome: 'pending' };
  if (state.status === 'failed') {
    await ctx.tx((uow) =>
      transitionPayment(uow, payment.id, {
        from: ['pending', 'initiated'],
        to: 'failed',
        source,
        data: { ...audit, reason: state.failureReason ?? null },
        patch: { error_message: (state.failureReason ?? 'The payment was not completed.').slice(0, 500) },
      }),
    );
    return { outcome: 'failed' };
  }

  const checkout = await Checkout.query(ctx.knex).findById(payment.checkout_id);
  if (!checkout) throw new NotFoundError(`checkout of payment ${paymentId} does not exist`);
  const sameMoney =
    state.amountMinor === checkout.total_minor &&
    state.amountMinor === payment.amount_minor &&
    state.currency.toUpperCase() === checkout.currency.toUpperCase();
  if (!sameMoney) {
    // Money was taken, but not the checkout's amount: no order; the merchant sees why in the audit trail.
    const reason = `provider reports ${formatMoney(state.amountMinor, state.currency)} ${state.currency}, checkout is ${formatMoney(checkout.total_minor, checkout.currency)} ${checkout.currency}`;
    ctx.logger.error(
      { paymentId, checkoutId: checkout.id },
      `paid amount does not match the checkout: ${reason}`,
    );
    await ctx.tx((uow) =>
      transitionPayment(uow, payment.id, {
        from: ['pending', 'initiated'],
        to: 'failed',
        source,
        data: { ...audit, reason, amount_minor: state.amountMinor, currency: state.currency },
        patch: { error_message: 'The amount paid does not match the order total.' },
      }),
    );
    return { outcome: 'amount-mismatch' };
  }

  const { orderId, orderCreated, soldOut, refundId } = await ctx.tx(async (uow) => {
    const { trx } = uow;
    await transitionPayment(uow, payment.id, {
      from: PAYABLE_FROM,
      to: 'paid',
      source,
      data: { ...audit, amount_minor: state.amountMinor, currency: state.currency },
      patch: { paid_at: new Date(), error_message: null },
    });
    if (state.savedToken) {
      // The card token saved for a subscription's renewals, encrypted at rest; the subscription takes it
      // when fulfilment starts it (startSubscription).
      await trx('payments')
        .where('id', payment.id)
        .update({ saved_token_encrypted: ctx.cipher.encrypt(state.savedToken) });
    }
    // The order is placed Awaiting payment and moved to In progress by the order lifecycle, as the
    // provider's word: its status event (source `provider`), order.paid and order.status_changed, the tax
    // invoice and the fulfilment job staged with the change.
    const { order, created, soldOut } = await createOrderFromCheckout(uow, payment.checkout_id, {
      paymentId: payment.id,
      paymentMethod: payment.method,
      status: ORDER_STATUS.AWAITING_PAYMENT,
      logger: ctx.logger,
      onSoldOut: 'cancel',
    });
    if (soldOut) {
      const refund = await addRefund(
        ctx,
        uow,
        order,
        { reason: SOLD_OUT_REASON, withdrawGoods: false },
        { merchantTokenId: null },
        new Date(),
        { whole: true },
      );
      return { orderId: order.id, orderCreated: true, soldOut: true, refundId: refund?.id ?? null };
    }
    if (created) await providerConfirmed(ctx, uow, order, await assessPaidOrder(uow.trx, order));
    if (!created && order.payment_id !== payment.id) await settleSecondPayment(ctx, uow, order, payment);
    if (created) await startOrderSubscriptions(trx, order);
    await ctx.hooks?.afterOrder?.(order, trx);
    return { orderId: order.id, orderCreated: created, soldOut: false, refundId: null };
  });
  if (soldOut) return { outcome: 'sold-out', orderId, refundId };
  // A new order's fulfilment job was staged with its status change; an order found already there (another
  // reconciliation made it) gets its job again, harmlessly, in case that one's was lost.
  if (!orderCreated) await enqueueFulfilment(ctx.queues, orderId);
  return { outcome: 'paid', orderId, orderCreated };
}

/**
 * The provider confirmed the order's payment: In progress, through the order lifecycle; or Under review with
 * nothing delivered when a review rule of the store's fraud controls holds it (shared/services/fraud/risk.ts).
 */
async function providerConfirmed(
  ctx: PaymentsContext,
  uow: UnitOfWork,
  order: Order,
  risk?: { held: boolean },
): Promise<void> {
  const held = risk?.held === true;
  await changeOrderStatus(
    ctx,
    order.store_id,
    order.id,
    held ? ORDER_STATUS.UNDER_REVIEW : ORDER_STATUS.IN_PROGRESS,
    {
      actor: { kind: 'provider' },
      reason: held ? 'fraud_review' : 'payment_confirmed',
      within: { uow },
    },
  );
}

/**
 * A checkout paid twice (two sessions were open and both were paid). An order waiting in Under review for
 * a manual payment takes the confirmed one instead and goes ahead; otherwise the second payment is kept,
 * flagged for the merchant to refund, and changes nothing else.
 */
async function settleSecondPayment(
  ctx: PaymentsContext,
  uow: UnitOfWork,
  order: Order,
  payment: Payment,
): Promise<void> {
  const { trx } = uow;
  // An order a fraud review holds (shared/services/fraud/risk.ts) was paid already: a second payment
  // does not release it; it is flagged for a refund like any other duplicate.
  const held = await trx('order_risk').where({ order_id: order.id, held: true }).first('order_id');
  if (order.status === ORDER_STATUS.UNDER_REVIEW && !held) {
    const previous = order.payment_id;
    await Order.query(trx)
      .patch({ payment_id: payment.id, payment_method: payment.method })
      .where({ id: order.id, status: ORDER_STATUS.UNDER_REVIEW });
    // The manual payment's confirmation step finds the provider's payment paid already (it moves it only
    // from an unpaid status) and issues the invoice.
    await providerConfirmed(ctx, uow, order);
    if (previous !== null) {
      await transitionPayment(uow, previous, {
        from: ['pending', 'initiated'],
        to: 'expired',
        source: 'worker',
        data: { replaced_by_payment_id: payment.id },
      });
    }
    return;
  }
  ctx.logger.warn(
    { orderId: order.id, paymentId: payment.id, orderPaymentId: order.payment_id },
    'checkout paid twice: the second payment needs a refund',
  );
  await Payment.query(trx)
    .patch({ error_message: `Duplicate payment: order ${order.id} was already paid; refund it.` })
    .where('id', payment.id);
}
