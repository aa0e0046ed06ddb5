import type { Knex } from 'knex';
import {
  Checkout,
  Coupon,
  ORDER_STATUS,
  Order,
  Payment,
  PaymentMethodId,
  StorePaymentMethod,
} from '../../../db/models';
import type { Config } from '../../config';
import { sha256 } from '../../crypto';
import { InvalidError, NotFoundError } from '../../errors';
import type { Logger } from '../../logger';
import { toMajorNumber } from '../../money';
import { BankDetails, bankDetails } from '../../providers/bank';
import { payLinkWithAmount, paypalSettings } from '../../providers/paypal';
import { isHostedProvider } from '../../providers/types';
import type { JobsOptions } from 'bullmq';
import { enqueue, Queues } from '../../queues';
import { stageJob, StagedJob } from '../../queues/outbox';
import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import { assertMayStartWork, RequestBudget } from '../../request-deadline';
import { methodAccepts, PAYMENT_METHOD_NAMES, providerOffered, type MethodOffer } from '../payment-methods';
import { createOrderFromCheckout } from '../orders/create-from-checkout';
import { recordCreation } from '../payment-records/audit';
import { manualPaymentDeadline } from './manual-expiry';
import { PaymentPageRefs } from './page-ref';

export const CHECKOUT_NOT_FOUND = 'Checkout session expired or not found';
export const ORDER_ALREADY_CREATED = 'Order already created for this checkout';
export const METHOD_NOT_CONFIGURED = 'Payment method not configured for this store';
export const METHOD_NOT_ALLOWED_BY_COUPON = 'The applied coupon cannot be used with this payment method';
export const METHOD_AMOUNT_OUT_OF_RANGE = 'This payment method is not available for this amount';

/** A payment session still waiting for the customer is handed out again rather than opening another. */
const REUSE_WINDOW_MS = 30 * 60 * 1000;

export interface PaymentsDeps extends TxDeps {
  knex: Knex;
  queues: Queues;
  config: Pick<Config, 'publicBaseUrl' | 'sandboxEnabled'>;
  appSecret: string;
  /** Earlier secrets (APP_SECRET_PREVIOUS): payment page addresses built under them still open. */
  appSecretPrevious?: readonly string[];
  logger: Logger;
  /** The HTTP request's budget: no payment is opened once it is spent. */
  budget?: RequestBudget;
}

/** Which checkout to pay: by its secret URL (Embed API, hosted page) or by id (retry from a payment page). */
export type CheckoutSelector =
  { checkoutUrl: string; storeId: number | null; customerId: number | null } | { checkoutId: number };

export type Initiation =
  | { kind: 'redirect'; paymentId: number; redirectUrl: string; orderId: number | null }
  | {
      kind: 'paypal_manual';
      paymentId: number;
      orderId: number;
      email: string;
      amountMinor: number;
      currency: string;
      deadline: ManualDeadline;
    }
  | {
      kind: 'bank_transfer';
      paymentId: number;
      orderId: number;
      details: BankDetails;
      amountMinor: number;
      currency: string;
      deadline: ManualDeadline;
    };

/** How long the buyer has to pay a manual order (stores.manual_payment_days), told with the instructions. */
export interface ManualDeadline {
  days: number;
  payBy: Date;
}

/** The Embed API's answer (spec: payment/initiate), by type. */
export type InitiationAnswer =
  | { type: 'redirect'; redirect_url: string }
  | {
      type: 'paypal_manual';
      paypal_email: string;
      amount: number;
      checkout_url: string;
      payment_days: number;
      pay_by: string;
      order_id: number;
      reference: string;
    }
  | {
      type: 'bank_transfer';
      bank_details: BankDetails;
      amount: number;
      checkout_url: string;
      payment_days: number;
      pay_by: string;
      order_id: number;
      reference: string;
    };

export function initiationAnswer(initiation: Initiation, checkoutUrl: string): InitiationAnswer {
  switch (initiation.kind) {
    case 'redirect':
      return { type: 'redirect', redirect_url: initiation.redirectUrl };
    case 'paypal_manual':
      return {
        type: 'paypal_manual',
        paypal_email: initiation.email,
        amount: toMajorNumber(initiation.amountMinor, initiation.currency),
        checkout_url: checkoutUrl,
        payment_days: initiation.deadline.days,
        pay_by: initiation.deadline.payBy.toISOString(),
        // The order the merchant sees (#id): the buyer quotes it with the transfer.
        order_id: initiation.orderId,
        reference: `#${initiation.orderId}`,
      };
    case 'bank_transfer':
      return {
        type: 'bank_transfer',
        bank_details: initiation.details,
        amount: toMajorNumber(initiation.amountMinor, initiation.currency),
        checkout_url: checkoutUrl,
        payment_days: initiation.deadline.days,
        pay_by: initiation.deadline.payBy.toISOString(),
        // The order the merchant sees (#id): the buyer quotes it with the transfer.
        order_id: initiation.orderId,
        reference: `#${initiation.orderId}`,
      };
  }
}

async function lockCheckout(trx: Knex.Transaction, selector: CheckoutSelector): Promise<Checkout> {
  let checkout: Checkout | undefined;
  if ('checkoutId' in selector) {
    checkout = await Checkout.query(trx).findById(selector.checkoutId).forUpdate();
  } else {
    if (selector.checkoutUrl.length === 0 || selector.checkoutUrl.length > 200) {
      throw new NotFoundError(CHECKOUT_NOT_FOUND).withCode('checkout_not_found');
    }
    const query = Checkout.query(trx)
      .findOne({ token_hash: sha256(selector.checkoutUrl) })
      .forUpdate();
    if (selector.storeId !== null) query.where('store_id', selector.storeId);
    checkout = await query;
  }
  if (!checkout) throw new NotFoundError(CHECKOUT_NOT_FOUND).withCode('checkout_not_found');
  // The authenticated form only pays the customer's own checkouts; another's is as good as unknown.
  if (
    'customerId' in selector &&
    selector.customerId !== null &&
    checkout.customer_id !== selector.customerId
  ) {
    throw new NotFoundError(CHECKOUT_NOT_FOUND).withCode('checkout_not_found');
  }
  return checkout;
}

async function checkMethod(
  trx: Knex.Transaction,
  checkout: Checkout,
  method: PaymentMethodId,
  offer: MethodOffer,
): Promise<StorePaymentMethod> {
  const configured = await StorePaymentMethod.query(trx).findOne({
    store_id: checkout.store_id,
    method,
    active: true,
  });
  // A method on a provider this deployment does not offer (the sandbox in production) is as good as absent.
  if (!configured || !providerOffered(offer, configured.provider))
    throw new InvalidError(METHOD_NOT_CONFIGURED).withCode('payment_method_not_configured');
  if (checkout.coupon_id !== null) {
    const coupon = await Coupon.query(trx).findById(checkout.coupon_id);
    const restrictions = coupon?.payment_restrictions ?? [];
    if (!methodAccepts(configured, { restrictions }))
      throw new InvalidError(METHOD_NOT_ALLOWED_BY_COUPON).withCode('payment_method_not_allowed_by_coupon');
  }
  if (!methodAccepts(configured, { amountMinor: checkout.total_minor })) {
    throw new InvalidError(METHOD_AMOUNT_OUT_OF_RANGE).withCode('payment_method_amount_out_of_range');
  }
  return configured;
}

interface Planned {
  initiation: Initiation;
  /** The initiate job, staged in the transaction's outbox; handed to the queue once it committed. */
  staged: StagedJob[];
}

/**
 * Starts paying a checkout with one method. Never calls a provider: for hosted-page providers it writes a
 * pending payment (and its audit row) and leaves the provider session to the `payments` queue, answering
 * with the platform's payment page, which forwards to the provider once the session exists. PayPal and
 * bank transfer need no provider: their order is created at once in Under review, where it waits for the
 * merchant to confirm the money arrived (confirmManualPayment).
 *
 * Refusals, in the spec's order: unknown or expired checkout 404; order already created 400; method not
 * configured 400; a method outside the coupon's payment restrictions, or outside the method's amount
 * bounds, 400.
 */
export async function initiatePayment(
  deps: PaymentsDeps,
  selector: CheckoutSelector,
  method: PaymentMethodId,
  now: Date = new Date(),
): Promise<Initiation> {
  const refs = new PaymentPageRefs(deps.appSecret);
  assertMayStartWork(deps.budget);
  // The payment and its session job commit together; the job goes to the queue once the unit of work has
  // committed, or (Redis out of reach) with the outbox relay once Redis is back. Either way the request is
  // answered as accepted, and the session is opened exactly once (a request refused before the commit
  // left nothing behind).
  const planned = await deps.tx(async (uow) => {
    const plan = await planInitiation(deps, uow, selector, method, now, refs);
    uow.stage(...plan.staged);
    return plan;
  });
  return planned.initiation;
}

async function planInitiation(
  deps: PaymentsDeps,
  uow: UnitOfWork,
  selector: CheckoutSelector,
  method: PaymentMethodId,
  now: Date,
  refs: PaymentPageRefs,
): Promise<Planned> {
  const { trx } = uow;
  const checkout = await lockCheckout(trx, selector);
  const order = await Order.query(trx).findOne({ checkout_id: checkout.id });
  if (order) throw new InvalidError(ORDER_ALREADY_CREATED).withCode('order_already_created');
  const payable = checkout.status === 'created' || checkout.status === 'payment_initiated';
  if (!payable || new Date(checkout.expires_at) <= now)
    throw new NotFoundError(CHECKOUT_NOT_FOUND).withCode('checkout_not_found');
  const configured = await checkMethod(trx, checkout, method, deps.config);

  if (isHostedProvider(configured.provider)) {
    const open = await Payment.query(trx)
      .where({ checkout_id: checkout.id, method, provider: configured.provider })
      .whereIn('status', ['pending', 'initiated'])
      .where('created_at', '>', new Date(now.getTime() - REUSE_WINDOW_MS))
      .orderBy('id', 'desc')
      .first();
    const payment = open ?? (await newPayment(trx, checkout, configured, 'pending'));
    await Checkout.query(trx)
      .patch({ status: 'payment_initiated' })
      .where({ id: checkout.id, status: 'created' });
    return {
      initiation: {
        kind: 'redirect',
        paymentId: payment.id,
        redirectUrl: refs.url(deps.config.publicBaseUrl, payment.id),
        orderId: null,
      },
      staged: payment.status === 'pending' ? [await stageSessionJob(trx, payment.id)] : [],
    };
  }

  if (configured.provider === 'bank' || method === 'bank') {
    const details = bankDetails(configured.settings);
    if (!details) throw new InvalidError(METHOD_NOT_CONFIGURED).withCode('payment_method_not_configured');
    const { payment, orderId } = await manualOrder(deps, uow, checkout, configured, null);
    return {
      initiation: {
        kind: 'bank_transfer',
        paymentId: payment.id,
        orderId,
        details,
        amountMinor: checkout.total_minor,
        currency: checkout.currency,
        deadline: await deadlineOf(trx, checkout.store_id, now),
      },
      staged: [],
    };
  }

  const paypal = paypalSettings(configured.settings);
  if (paypal.pay_link) {
    const link = payLinkWithAmount(paypal.pay_link, checkout.total_minor, checkout.currency);
    const { payment, orderId } = await manualOrder(deps, uow, checkout, configured, link);
    return {
      initiation: { kind: 'redirect', paymentId: payment.id, redirectUrl: link, orderId },
      staged: [],
    };
  }
  if (!paypal.email) throw new InvalidError(METHOD_NOT_CONFIGURED).withCode('payment_method_not_configured');
  const { payment, orderId } = await manualOrder(deps, uow, checkout, configured, null);
  return {
    initiation: {
      kind: 'paypal_manual',
      paymentId: payment.id,
      orderId,
      email: paypal.email,
      amountMinor: checkout.total_minor,
      currency: checkout.currency,
      deadline: await deadlineOf(trx, checkout.store_id, now),
    },
    staged: [],
  };
}

/** The options of a session job: its id is the payment's, so every path asking for it adds one job. */
function sessionJobOptions(paymentId: number): JobsOptions & { jobId: string } {
  // Fewer, quicker attempts than the default: a customer is watching the payment page meanwhile.
  return {
    jobId: `payment-initiate-${paymentId}`,
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
  };
}

function stageSessionJob(trx: Knex.Transaction, paymentId: number): Promise<StagedJob> {
  return stageJob(trx, 'payments', { kind: 'initiate', paymentId }, sessionJobOptions(paymentId));
}

/**
 * Enqueues the job that opens a payment's provider session. Its id is the payment's, so the API and the
 * sweep asking for the same session add one job.
 */
export async function enqueueSessionJob(queues: Queues, paymentId: number): Promise<void> {
  // The sweep's re-ask writes nothing: no transaction exists (a new payment stages it).
  await enqueue(queues, 'payments', { kind: 'initiate', paymentId }, sessionJobOptions(paymentId));
}

async function newPayment(
  trx: Knex.Transaction,
  checkout: Checkout,
  configured: StorePaymentMethod,
  status: 'pending' | 'initiated',
  providerUrl: string | null = null,
): Promise<Payment> {
  const payment = await Payment.query(trx).insertAndFetch({
    checkout_id: checkout.id,
    store_id: checkout.store_id,
    method: configured.method,
    provider: configured.provider,
    status,
    amount_minor: checkout.total_minor,
    currency: checkout.currency,
    provider_url: providerUrl,
  });
  await recordCreation(trx, payment, 'api', { method: configured.method, provider: configured.provider });
  return payment;
}

/**
 * PayPal and bank transfer: the payment is initiated at once (there is no provider session) and the order
 * is created in Under review, holding the checkout's keys, until the merchant confirms the money arrived.
 */
async function deadlineOf(trx: Knex.Transaction, storeId: number, now: Date): Promise<ManualDeadline> {
  const store = await trx('stores')
    .where('id', storeId)
    .first<{ manual_payment_days: number } | undefined>('manual_payment_days');
  const days = Number(store?.manual_payment_days ?? 3);
  return { days, payBy: manualPaymentDeadline(now, days) };
}

async function manualOrder(
  deps: PaymentsDeps,
  uow: UnitOfWork,
  checkout: Checkout,
  configured: StorePaymentMethod,
  providerUrl: string | null,
): Promise<{ payment: Payment; orderId: number }> {
  const payment = await newPayment(uow.trx, checkout, configured, 'initiated', providerUrl);
  const { order } = await createOrderFromCheckout(uow, checkout.id, {
    paymentId: payment.id,
    paymentMethod: configured.method,
    status: ORDER_STATUS.UNDER_REVIEW,
    logger: deps.logger,
  });
  return { payment, orderId: order.id };
}

/** The method names shown on the hosted pages. */
export function methodName(method: PaymentMethodId): string {
  return PAYMENT_METHOD_NAMES[method].name_en;
}
