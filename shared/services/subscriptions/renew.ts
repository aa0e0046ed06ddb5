import type { Knex } from 'knex';
import type { TxDeps } from '../../unit-of-work';
import {
  Checkout,
  ORDER_STATUS,
  Order,
  OrderItem,
  Payment,
  ProductPlan,
  Store,
  Subscription,
  SubscriptionRenewal,
} from '../../../db/models';
import type { Config } from '../../config';
import { sha256 } from '../../crypto';
import type { Cipher } from '../../crypto';
import { NotFoundError } from '../../errors';
import type { Logger } from '../../logger';
import {
  isHostedProvider,
  PaymentProviders,
  ProviderPaymentState,
  ProviderRejectedError,
} from '../../providers/types';
import type { Queues } from '../../queues';
import { stageFulfilment } from '../fulfilment/enqueue';
import { createOrderFromCheckout } from '../orders/create-from-checkout';
import { applyTax } from '../pricing';
import { recordCreation, transitionPayment } from '../payment-records/audit';
import { credentialsFor } from '../payment-records/credentials';
import {
  applyPaidRenewal,
  endSubscription,
  lockSubscription,
  subscriptionEvent,
} from '../fulfilment/subscription-lifecycle';
import { SubscriptionLinks } from './links';
import { termsFor } from './terms';

/**
 * One renewal run: charge the subscription's saved card for the next period, or send the buyer the
 * renewal link. The scheduler's job, a retried job and the development route all come here.
 *
 * One charge per period, ever: the period has one `subscription_renewals` row (unique on its start), and
 * each attempt on it has a number, written before the provider is called; the provider gets the key
 * `renewal-<row>-<attempt>`. A run that finds an attempt still `charging` (a worker killed mid-charge, a
 * second run at the same moment, a job retried from the dashboard) calls the provider with the same key,
 * so the provider answers the charge it already made instead of making another; the order comes from the
 * renewal's checkout through the same path as any paid checkout (one order per checkout).
 *
 * Dunning: a declined charge makes the subscription `past_due` and schedules the next try
 * DUNNING_DAYS after the period end; the buyer is told each time, with a link to pay by hand. After the
 * last try the subscription is `expired`.
 */

/** Days after the period end on which a declined renewal is tried again. */
export const DUNNING_DAYS: readonly number[] = [1, 3, 5];
/** A card is charged once its period ends within this window (the scheduler runs every few minutes). */
export const CARD_RENEWAL_WINDOW_MS = 60 * 60 * 1000;
/** A renewal link goes out this long before the period ends. */
export const LINK_RENEWAL_WINDOW_MS = 3 * 86_400_000;

const DAY_MS = 86_400_000;

export type RenewalOutcome = 'renewed' | 'link_sent' | 'failed' | 'not_due';

export interface RenewalResult {
  outcome: RenewalOutcome;
  order_id: number | null;
}

export interface RenewalDeps extends TxDeps {
  knex: Knex;
  queues: Queues;
  cipher: Cipher;
  logger: Logger;
  appSecret: string;
  providers: PaymentProviders;
  config: Pick<Config, 'publicBaseUrl' | 'merchantWebhookRetryDelayMs'>;
}

export interface RenewalOptions {
  now?: Date;
  /**
   * Run now whatever the clock says (the development route: "as the scheduler would when its period
   * ends"); a dunning retry is made at once instead of on its day. Without it a run before the window
   * answers `not_due`.
   */
  force?: boolean;
}

/** A provider's answer that is neither paid nor declined yet: the job is retried later. */
export class RenewalPendingError extends Error {
  readonly code = 'RENEWAL_PENDING';
  constructor(message: string) {
    super(message);
    this.name = 'RenewalPendingError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

type Plan =
  | { kind: 'done'; result: RenewalResult }
  | {
      kind: 'charge';
      renewal: SubscriptionRenewal;
      payment: Payment;
      token: string;
      subscription: Subscription;
    };

function periodOf(sub: Subscription): Date | null {
  return sub.current_period_end ? new Date(sub.current_period_end) : null;
}

/** The card token, when the subscription can be charged without the buyer. */
function savedToken(deps: RenewalDeps, sub: Subscription): string | null {
  if (!sub.payment_token_encrypted || !sub.provider || !isHostedProvider(sub.provider)) return null;
  if (!deps.providers[sub.provider].chargeSavedToken) return null;
  return deps.cipher.decrypt(sub.payment_token_encrypted);
}

/** The renewal's checkout: one line, the plan at the renewal's agreed price, the first order's buyer and fields. */
async function renewalCheckout(
  deps: RenewalDeps,
  trx: Knex.Transaction,
  sub: Subscription,
  renewal: SubscriptionRenewal,
  plan: ProductPlan,
  payable: boolean,
): Promise<Checkout> {
  const existing = renewal.checkout_id ? await Checkout.query(trx).findById(renewal.checkout_id) : undefined;
  if (existing) return existing;
  const first = sub.order_id ? await Order.query(trx).findById(sub.order_id) : undefined;
  const item = sub.order_item_id ? await OrderItem.query(trx).findById(sub.order_item_id) : undefined;
  if (!first) throw new NotFoundError(`subscription ${sub.id} has no first order to renew from`);
  const quantity = item?.quantity ?? 1;
  // The price the subscriber agreed to, fixed on the renewal row (terms.ts); never the plan's of today.
  const unitPrice = renewal.price_minor !== null ? Number(renewal.price_minor) : Number(plan.price_minor);
  const subtotal = unitPrice * quantity;
  // The store's VAT setting of today, as a new checkout would price it.
  const store = await Store.query(trx).findById(sub.store_id);
  const { taxMinor, totalMinor } = applyTax(subtotal, {
    mode: store?.tax_mode ?? 'none',
    rateBp: store?.tax_rate_bp ?? 0,
  });
  const lastTry = DUNNING_DAYS[DUNNING_DAYS.length - 1] ?? 0;
  const checkout = await Checkout.query(trx).insertAndFetch({
    store_id: sub.store_id,
    token_hash: sha256(new SubscriptionLinks(deps.appSecret).renewalCheckoutUrl(renewal.id)),
    source: 'renewal',
    customer_id: sub.customer_id,
    customer_first_name: first.customer_first_name,
    customer_last_name: first.customer_last_name,
    customer_email: first.customer_email,
    customer_country_code: first.customer_country_code,
    customer_phone: first.customer_phone,
    product_id: sub.product_id,
    plan_id: plan.id,
    quantity,
    unit_price_minor: unitPrice,
    addons_minor: 0,
    subtotal_minor: subtotal,
    discount_minor: 0,
    tax_minor: taxMinor,
    total_minor: totalMinor,
    currency: first.currency,
    fields: item?.fields ?? {},
    status: payable ? 'payment_initiated' : 'created',
    reserved: false,
    // Payable by hand until the last dunning try is over.
    expires_at: new Date(new Date(renewal.period_start).getTime() + (lastTry + 1) * DAY_MS),
  });
  await SubscriptionRenewal.query(trx).patch({ checkout_id: checkout.id }).where('id', renewal.id);
  return checkout;
}

/**
 * Finds or creates the period's renewal row (unique per subscription and period start). The row takes
 * the plan and the unit price of the terms in force (terms.ts) when it is created, once.
 */
async function renewalRow(
  trx: Knex.Transaction,
  sub: Subscription,
  periodStart: Date,
  now: Date,
): Promise<SubscriptionRenewal> {
  const terms = termsFor(sub, periodStart, now);
  await trx('subscription_renewals')
    .insert({
      subscription_id: sub.id,
      store_id: sub.store_id,
      period_start: periodStart,
      plan_id: terms.planId,
      price_minor: terms.priceMinor,
      new_terms: terms.newTerms,
    })
    .onConflict(['subscription_id', 'period_start'])
    .ignore();
  const row = await SubscriptionRenewal.query(trx)
    .findOne({ subscription_id: sub.id, period_start: periodStart })
    .forUpdate();
  if (!row) throw new NotFoundError(`renewal of subscription ${sub.id} vanished`);
  return row;
}

const done = (outcome: RenewalOutcome, orderId: number | null = null): Plan => ({
  kind: 'done',
  result: { outcome, order_id: orderId },
});

/** Step one, in a transaction with the subscription locked: decide, and write the attempt down. */
async function plan(deps: RenewalDeps, id: number, now: Date, force: boolean): Promise<Plan> {
  return deps.tx(async (uow): Promise<Plan> => {
    const { trx } = uow;
    const sub = await lockSubscription(trx, id);
    if (!sub) throw new NotFoundError('Subscription not found');
    const periodStart = periodOf(sub);
    if (periodStart === null) return done('not_due'); // lifetime
    if (sub.status === 'cancelled' || sub.status === 'expired' || sub.cancel_at_period_end) {
      return done('not_due');
    }
    const token = savedToken(deps, sub);
    const window = token ? CARD_RENEWAL_WINDOW_MS : LINK_RENEWAL_WINDOW_MS;
    if (!force && periodStart.getTime() - window > now.getTime()) {
      // A charge already with the provider (its answer lost) is resolved whatever the clock says.
      const inFlight = await SubscriptionRenewal.query(trx).findOne({
        subscription_id: sub.id,
        period_start: periodStart,
        status: 'charging',
      });
      if (!inFlight) return done('not_due');
    }

    const renewal = await renewalRow(trx, sub, periodStart, now);
    if (renewal.status === 'paid') return done('renewed', renewal.order_id);
    const paidBefore = renewal.checkout_id
      ? await Order.query(trx).findOne({ checkout_id: renewal.checkout_id })
      : undefined;
    if (paidBefore && paidBefore.status >= ORDER_STATUS.IN_PROGRESS && paidBefore.status <= 4) {
      // Paid by hand through the link meanwhile: no charge; the subscription moves on now.
      await applyPaidRenewal(uow, renewal.id, paidBefore, now);
      return done('renewed', paidBefore.id);
    }
    const planRow = await ProductPlan.query(trx).findById(renewal.plan_id);
    if (!planRow) throw new NotFoundError(`plan ${renewal.plan_id} does not exist`);

    if (!token) {
      if (renewal.status === 'link_sent') return done('link_sent');
      await renewalCheckout(deps, trx, sub, renewal, planRow, false);
      await SubscriptionRenewal.query(trx).patch({ status: 'link_sent' }).where('id', renewal.id);
      await uow.emit({
        ...subscriptionEvent('subscription.renewal_link_sent', `r${renewal.id}`, sub),
        storeId: sub.store_id,
        at: now,
        facts: { message: { event: 'renewal_link', renewalId: renewal.id, attempt: 0 } },
      });
      return done('link_sent');
    }

    if (renewal.status === 'failed') {
      const due = renewal.next_attempt_at ? new Date(renewal.next_attempt_at) : null;
      if (due === null || (!force && due.getTime() > now.getTime())) return done('failed');
    }
    const checkout = await renewalCheckout(deps, trx, sub, renewal, planRow, true);
    if (renewal.status === 'charging' && renewal.payment_id !== null) {
      const payment = await Payment.query(trx).findById(renewal.payment_id);
      if (payment) return { kind: 'charge', renewal, payment, token, subscription: sub };
    }
    const payment = await Payment.query(trx).insertAndFetch({
      checkout_id: checkout.id,
      store_id: sub.store_id,
      method: sub.payment_method ?? 'card',
      provider: sub.provider ?? 'sandbox',
      status: 'pending',
      amount_minor: checkout.total_minor,
      currency: checkout.currency,
    });
    await recordCreation(trx, payment, 'worker', { renewal_id: renewal.id, attempt: renewal.attempts + 1 });
    const charging = await SubscriptionRenewal.query(trx).patchAndFetchById(renewal.id, {
      status: 'charging',
      attempts: renewal.attempts + 1,
      payment_id: payment.id,
    });
    return { kind: 'charge', renewal: charging, payment, token, subscription: sub };
  });
}

/** Step three for a paid charge: the order through the checkout path, the subscription one period on. */
async function settlePaid(
  deps: RenewalDeps,
  p: Extract<Plan, { kind: 'charge' }>,
  state: ProviderPaymentState,
  now: Date,
): Promise<Plan> {
  return deps.tx(async (uow): Promise<Plan> => {
    const { trx } = uow;
    await transitionPayment(uow, p.payment.id, {
      from: ['pending', 'initiated', 'failed'],
      to: 'paid',
      source: 'worker',
      data: { provider_status: state.providerStatus, renewal_id: p.renewal.id },
      patch: { provider_payment_id: state.providerPaymentId, paid_at: now, error_message: null },
    });
    const { order } = await createOrderFromCheckout(uow, p.payment.checkout_id, {
      paymentId: p.payment.id,
      paymentMethod: p.payment.method,
      status: ORDER_STATUS.IN_PROGRESS,
      logger: deps.logger,
    });
    await applyPaidRenewal(uow, p.renewal.id, order, now);
    // The renewal order's fulfilment (its licenses, FiveM commands): a job no event stands for, written
    // to the outbox with the order.
    uow.stage(await stageFulfilment(trx, order.id));
    return done('renewed', order.id);
  });
}

/** Step three for a declined charge: past_due and the next try, or expired after the last one. */
async function settleFailed(
  deps: RenewalDeps,
  p: Extract<Plan, { kind: 'charge' }>,
  state: Pick<ProviderPaymentState, 'providerPaymentId' | 'providerStatus' | 'failureReason'> | null,
  reason: string,
  now: Date,
): Promise<Plan> {
  return deps.tx(async (uow): Promise<Plan> => {
    const { trx } = uow;
    await transitionPayment(uow, p.payment.id, {
      from: ['pending', 'initiated'],
      to: 'failed',
      source: 'worker',
      data: { provider_status: state?.providerStatus ?? null, reason, renewal_id: p.renewal.id },
      patch: {
        ...(state ? { provider_payment_id: state.providerPaymentId } : {}),
        error_message: reason.slice(0, 500),
      },
    });
    const sub = await lockSubscription(trx, p.subscription.id);
    const renewal = await SubscriptionRenewal.query(trx).findById(p.renewal.id).forUpdate();
    // Someone else settled this attempt already (a concurrent run with the same key): nothing more.
    if (!sub || !renewal || renewal.status !== 'charging' || renewal.attempts !== p.renewal.attempts) {
      return done(renewal?.status === 'paid' ? 'renewed' : 'failed', renewal?.order_id ?? null);
    }
    const periodEnd = new Date(renewal.period_start).getTime();
    const nextDays = DUNNING_DAYS[renewal.attempts - 1];
    if (nextDays === undefined) {
      await SubscriptionRenewal.query(trx)
        .patch({ status: 'failed', next_attempt_at: null, last_error: reason.slice(0, 500) })
        .where('id', renewal.id);
      const message = { event: 'expired' as const, renewalId: renewal.id, attempt: renewal.attempts };
      await endSubscription(uow, sub, 'expired', now, message);
    } else {
      await SubscriptionRenewal.query(trx)
        .patch({
          status: 'failed',
          next_attempt_at: new Date(Math.max(periodEnd + nextDays * DAY_MS, now.getTime())),
          last_error: reason.slice(0, 500),
        })
        .where('id', renewal.id);
      await Subscription.query(trx)
        .patch({ status: 'past_due', past_due_since: sub.past_due_since ?? now })
        .where('id', sub.id);
      await uow.emit({
        ...subscriptionEvent(
          'subscription.payment_failed',
          `r${renewal.id}a${renewal.attempts}`,
          { ...sub, status: 'past_due' },
          { attempt: renewal.attempts, reason },
        ),
        storeId: sub.store_id,
        at: now,
        facts: { message: { event: 'payment_failed', renewalId: renewal.id, attempt: renewal.attempts } },
      });
    }
    return done('failed');
  });
}

/** Runs one renewal of subscription `id` (see the comment at the top of this file). */
export async function renewSubscription(
  deps: RenewalDeps,
  id: number,
  opts: RenewalOptions = {},
): Promise<RenewalResult> {
  const now = opts.now ?? new Date();
  let step = await plan(deps, id, now, opts.force === true);
  if (step.kind === 'charge') {
    const p = step;
    const credentials = await credentialsFor(deps, p.payment);
    const provider = deps.providers[p.payment.provider as keyof PaymentProviders];
    let state: ProviderPaymentState;
    try {
      state = await provider.chargeSavedToken!(
        {
          paymentId: p.payment.id,
          storeId: p.payment.store_id,
          token: p.token,
          amountMinor: p.payment.amount_minor,
          currency: p.payment.currency,
          description: `Subscription ${p.subscription.id} renewal`,
          idempotencyKey: `renewal-${p.renewal.id}-${p.renewal.attempts}`,
          returnUrl: `${deps.config.publicBaseUrl}/pay/subscriptions/${new SubscriptionLinks(deps.appSecret).ref(p.subscription.id)}`,
        },
        credentials,
      );
    } catch (err) {
      // A refusal of the request itself (the token is gone, credentials revoked) is a declined renewal;
      // an outage is thrown, and the same attempt is made again with the same key.
      if (!(err instanceof ProviderRejectedError)) throw err;
      state = {
        providerPaymentId: '',
        status: 'failed',
        amountMinor: p.payment.amount_minor,
        currency: p.payment.currency,
        providerStatus: 'rejected',
        failureReason: (err as Error).message,
      };
    }
    const sameMoney =
      state.amountMinor === p.payment.amount_minor &&
      state.currency.toUpperCase() === p.payment.currency.toUpperCase();
    if (state.status === 'paid' && sameMoney) step = await settlePaid(deps, p, state, now);
    else if (state.status === 'paid') {
      step = await settleFailed(deps, p, state, 'The amount charged does not match the renewal.', now);
    } else if (state.status === 'failed') {
      const reason = state.failureReason ?? 'The card was declined.';
      step = await settleFailed(deps, p, state.providerPaymentId ? state : null, reason, now);
    } else {
      throw new RenewalPendingError(`renewal ${p.renewal.id}: the provider has not decided the charge yet`);
    }
  }
  if (step.kind !== 'done') throw new Error('unreachable');
  return step.result;
}
