import { documentLink, type DocumentLink } from '../invoices/read';
import {
  Checkout,
  ORDER_STATUS,
  Order,
  Payment,
  PAYMENT_METHOD_IDS,
  Product,
  PaymentMethodId,
  Store,
  StorePaymentMethod,
} from '../../../db/models';
import type { Knex } from 'knex';
import { DomainError } from '../../errors';
import { SOLD_OUT_REASON } from '../refunds/create';
import { BankDetails, bankDetails } from '../../providers/bank';
import { paypalSettings } from '../../providers/paypal';
import { enqueue } from '../../queues';
import { activeMethods, methodAccepts, providerOffered } from '../payment-methods';
import { findLiveCheckout } from '../checkout';
import { resolvePlayer } from '../fulfilment/fivem';
import { CHECKOUT_NOT_FOUND, initiatePayment, Initiation, methodName, PaymentsDeps } from './initiate';
import { checkoutTitle } from '../checkout-records/lines';
import { manualPaymentDeadline } from './manual-expiry';
import { PaymentPageRefs } from './page-ref';
import { recurringPlanOf } from '../subscriptions/plans';
import { isVoidedRenewalLink } from '../subscriptions/page';

/**
 * What the platform's hosted payment pages show, decided here and rendered as HTML by api/pay. Two pages:
 * the checkout's page (`payment_url`: pick a method) and one payment's page (`redirect_url` and the
 * providers' return address: forward to the provider, wait, or show the outcome).
 */

export interface Summary {
  storeName: string;
  productName: string;
  /** The Arabic name (name_ar, else the name), for Arabic readers. */
  productNameAr?: string;
  quantity: number;
  amountMinor: number;
  currency: string;
  /** A recurring subscription: the page states how it renews (the buyer's consent). */
  renews?: 'monthly' | 'quarterly' | 'yearly';
  /** The digits the store's Arabic pages are written with (its preferences); Western when not given. */
  digits?: 'western' | 'arabic_indic';
}

/** How the goods of a paid checkout reach the buyer, for the success page. */
export interface Delivery {
  /** The buyer's phone with all but the last three digits hidden: "+966 •••••0101". */
  phoneMasked: string;
  /** Keys sold from stock (a `code` product) are sent by WhatsApp, or SMS when WhatsApp fails. */
  keys: boolean;
  /** A license key is generated and sent the same way. */
  license: boolean;
  /** Items delivered in the game by the store's FiveM server; `player` as entered at checkout. */
  inGame: { player: string | null } | null;
  /** A service: the store does it and completes the order. */
  service: boolean;
  subscription: boolean;
}

/** How long the buyer has to pay (the store's `manual_payment_days` from the order), and whether that is over. */
export interface PaymentDeadline {
  days: number;
  at: Date;
  passed: boolean;
}

export type ManualInstructions =
  | {
      kind: 'bank_transfer';
      details: BankDetails;
      amountMinor: number;
      currency: string;
      deadline: PaymentDeadline;
    }
  | {
      kind: 'paypal';
      email: string | null;
      link: string | null;
      amountMinor: number;
      currency: string;
      deadline: PaymentDeadline;
    };

export type CheckoutPage =
  | { kind: 'not_found' }
  /** A renewal's payment link whose subscription was cancelled: it cannot be paid. */
  | { kind: 'subscription_cancelled' }
  | { kind: 'choose'; summary: Summary; methods: { id: PaymentMethodId; name: string }[] }
  | {
      kind: 'paid';
      summary: Summary;
      orderId: number;
      /** The store's own number of the order (`orders.number`), the one its buyer and merchant read. */
      orderNumber: number;
      delivery: Delivery;
      document: DocumentLink | null;
    }
  | { kind: 'under_review'; summary: Summary; orderId: number; instructions: ManualInstructions | null }
  | Withdrawn;

/** The order was refunded (6) or cancelled (5): the page no longer says the payment was received. */
export interface Withdrawn {
  kind: 'withdrawn';
  summary: Summary;
  orderId: number;
  orderNumber: number;
  status: 5 | 6;
  /** Sold out while the buyer was paying: the payment is refunded (reconcile.ts, `sold_out`). */
  soldOut: boolean;
}

async function withdrawnOf(knex: Knex, summary: Summary, order: Order): Promise<Withdrawn | null> {
  if (order.status !== 5 && order.status !== 6) return null;
  const soldOut = await knex('refunds')
    .where({ order_id: order.id, reason: SOLD_OUT_REASON })
    .first<{ id: number } | undefined>('id');
  return {
    kind: 'withdrawn',
    summary,
    orderId: order.id,
    orderNumber: order.number,
    status: order.status,
    soldOut: soldOut !== undefined,
  };
}

export type PaymentPage =
  | { kind: 'not_found' }
  | { kind: 'forward'; url: string; checkoutId: number }
  /** A sandbox payment still open: the page itself shows the sandbox's Pay and Fail (docs/operations.md). */
  | { kind: 'sandbox'; summary: Summary; checkoutId: number }
  | {
      kind: 'waiting';
      reason: 'creating' | 'confirming';
      summary: Summary;
      continueUrl: string | null;
      checkoutId: number;
    }
  | {
      kind: 'paid';
      summary: Summary;
      orderId: number | null;
      orderNumber: number | null;
      delivery: Delivery;
      document: DocumentLink | null;
      /** The checkout, whose reveal cookie shows the goods to the browser that paid (shared/services/reveal). */
      checkoutId: number;
    }
  | Withdrawn
  /** The checkout already has an order through another payment (e.g. a bank transfer waiting for review). */
  | { kind: 'closed'; summary: Summary; orderId: number }
  | {
      kind: 'failed';
      summary: Summary;
      message: string;
      method: string;
      methodId: PaymentMethodId;
      retryable: boolean;
    };

/** The answer to a form post on a hosted page: go somewhere, show manual instructions, or an error page. */
export type PageAction =
  | { kind: 'redirect'; url: string }
  | { kind: 'manual'; summary: Summary; orderId: number; instructions: ManualInstructions }
  | { kind: 'subscription_cancelled' }
  | { kind: 'error'; status: number; message: string };

const GENERIC_FAILURE = 'The payment was not completed.';
export const INVALID_PAYMENT_METHOD = 'Invalid payment method';

function isPaymentMethod(value: string): value is PaymentMethodId {
  return (PAYMENT_METHOD_IDS as readonly string[]).includes(value);
}

async function summaryOf(deps: PaymentsDeps, checkout: Checkout): Promise<Summary> {
  const [store, title, recurring] = await Promise.all([
    Store.query(deps.knex).findById(checkout.store_id),
    checkoutTitle(deps.knex, checkout),
    recurringPlanOf(deps.knex, checkout),
  ]);
  return {
    storeName: store?.name ?? '',
    productName: title.name,
    productNameAr: title.nameAr,
    quantity: title.quantity,
    amountMinor: checkout.total_minor,
    currency: checkout.currency,
    ...(recurring ? { renews: recurring.duration as 'monthly' | 'quarterly' | 'yearly' } : {}),
    ...(store?.digits ? { digits: store.digits } : {}),
  };
}

const urlDepsOf = (deps: PaymentsDeps): { appSecret: string; publicBaseUrl: string } => ({
  appSecret: deps.appSecret,
  publicBaseUrl: deps.config.publicBaseUrl,
});

export function maskPhone(countryCode: string, phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const shown = digits.slice(-3);
  return `+${countryCode.replace(/\D/g, '')} ${'•'.repeat(Math.max(digits.length - shown.length, 0))}${shown}`;
}

async function deliveryOf(deps: PaymentsDeps, checkout: Checkout): Promise<Delivery> {
  const product = await Product.query(deps.knex).findById(checkout.product_id);
  const commands = await deps
    .knex('product_fivem_commands')
    .where('product_id', checkout.product_id)
    .count<{ count: string }[]>({ count: '*' });
  const inGame =
    Number(commands[0]?.count ?? 0) > 0
      ? { player: resolvePlayer(product?.fields ?? [], checkout.fields ?? {}).player }
      : null;
  return {
    phoneMasked: maskPhone(checkout.customer_country_code, checkout.customer_phone),
    keys: product?.type === 'code',
    license: product?.license_enabled === true,
    inGame,
    service: product?.type === 'service' && product.license_enabled !== true,
    subscription: product?.type === 'subscription',
  };
}

async function manualInstructions(
  deps: PaymentsDeps,
  order: Order,
  payment: Payment | undefined,
): Promise<ManualInstructions | null> {
  if (!order.payment_method) return null;
  const configured = await StorePaymentMethod.query(deps.knex).findOne({
    store_id: order.store_id,
    method: order.payment_method,
  });
  if (!configured) return null;
  const store = await Store.query(deps.knex).findById(order.store_id);
  const days = store?.manual_payment_days ?? 3;
  const deadline: PaymentDeadline = {
    days,
    at: manualPaymentDeadline(order.created_at, days),
    // Cancelled under review: the expire-manual-orders task found the deadline passed.
    passed: order.status === ORDER_STATUS.CANCELLED,
  };
  const money = { amountMinor: order.total_minor, currency: order.currency, deadline };
  if (configured.provider === 'bank') {
    const details = bankDetails(configured.settings);
    return details ? { kind: 'bank_transfer', details, ...money } : null;
  }
  if (configured.provider === 'paypal') {
    const paypal = paypalSettings(configured.settings);
    return { kind: 'paypal', email: paypal.email ?? null, link: payment?.provider_url ?? null, ...money };
  }
  return null;
}

/** GET /pay/:checkoutUrl */
export async function checkoutPage(
  deps: PaymentsDeps,
  checkoutUrl: string,
  now = new Date(),
): Promise<CheckoutPage> {
  const checkout = await findLiveCheckout(deps.knex, null, checkoutUrl, now);
  if (!checkout) {
    return (await isVoidedRenewalLink(deps.knex, checkoutUrl))
      ? { kind: 'subscription_cancelled' }
      : { kind: 'not_found' };
  }
  const summary = await summaryOf(deps, checkout);
  const order = await Order.query(deps.knex).findOne({ checkout_id: checkout.id });
  if (order) {
    const payment = order.payment_id ? await Payment.query(deps.knex).findById(order.payment_id) : undefined;
    if (!payment || payment.status === 'paid' || payment.status === 'refunded') {
      // A paid order refunded or cancelled since: said so, never "payment received".
      const withdrawn = await withdrawnOf(deps.knex, summary, order);
      if (withdrawn) return withdrawn;
      return {
        kind: 'paid',
        summary,
        orderId: order.id,
        orderNumber: order.number,
        delivery: await deliveryOf(deps, checkout),
        document: await documentLink(deps.knex, urlDepsOf(deps), order.id),
      };
    }
    return {
      kind: 'under_review',
      summary,
      orderId: order.id,
      instructions: await manualInstructions(deps, order, payment),
    };
  }
  const coupon = checkout.coupon_id
    ? await deps
        .knex('coupons')
        .where('id', checkout.coupon_id)
        .first<{ payment_restrictions: string[] }>('payment_restrictions')
    : undefined;
  const methods = (await activeMethods(deps.knex, checkout.store_id, deps.config))
    .filter((m) =>
      methodAccepts(m, {
        amountMinor: checkout.total_minor,
        restrictions: coupon?.payment_restrictions ?? [],
      }),
    )
    .map((m) => ({ id: m.method, name: methodName(m.method) }));
  return { kind: 'choose', summary, methods };
}

async function actionFor(
  deps: PaymentsDeps,
  initiation: Initiation,
  checkoutId: number,
): Promise<PageAction> {
  if (initiation.kind === 'redirect') return { kind: 'redirect', url: initiation.redirectUrl };
  const checkout = await Checkout.query(deps.knex).findById(checkoutId);
  const order = await Order.query(deps.knex).findById(initiation.orderId);
  const payment = await Payment.query(deps.knex).findById(initiation.paymentId);
  const instructions = order ? await manualInstructions(deps, order, payment) : null;
  if (!checkout || !order || !instructions) return { kind: 'error', status: 500, message: GENERIC_FAILURE };
  return { kind: 'manual', summary: await summaryOf(deps, checkout), orderId: order.id, instructions };
}

/** Turns a refusal of the initiation into a page, as the customer should read it (the status from the API's table). */
function refusal(err: unknown): PageAction {
  if (err instanceof DomainError) {
    const status = err.code === 'NOT_FOUND' ? 404 : err.code === 'VALIDATION_FAILED' ? 422 : 400;
    return { kind: 'error', status, message: err.message };
  }
  throw err;
}

/** POST /pay/:checkoutUrl with the chosen method: the same initiation as the Embed API's guest form. */
export async function startFromCheckoutPage(
  deps: PaymentsDeps,
  checkoutUrl: string,
  method: string,
): Promise<PageAction> {
  if (!isPaymentMethod(method)) return { kind: 'error', status: 422, message: INVALID_PAYMENT_METHOD };
  if (await isVoidedRenewalLink(deps.knex, checkoutUrl)) return { kind: 'subscription_cancelled' };
  try {
    const initiation = await initiatePayment(deps, { checkoutUrl, storeId: null, customerId: null }, method);
    const payment = await Payment.query(deps.knex).findById(initiation.paymentId);
    return await actionFor(deps, initiation, payment?.checkout_id ?? 0);
  } catch (err) {
    return refusal(err);
  }
}

/** No sandbox session yet (the worker is opening it), or one where neither button was pressed. */
async function sandboxStillOpen(deps: PaymentsDeps, sandboxPaymentId: string | null): Promise<boolean> {
  if (!sandboxPaymentId) return true;
  const row = await deps
    .knex('sandbox_payments')
    .where({ id: sandboxPaymentId })
    .first<{ status: string } | undefined>('status');
  return row?.status === 'pending';
}

/** GET /pay/payments/:ref */
export async function paymentPage(
  deps: PaymentsDeps,
  ref: string,
  opts: { returning: boolean },
  now = new Date(),
): Promise<PaymentPage> {
  const paymentId = new PaymentPageRefs(deps.appSecret, deps.appSecretPrevious).parse(ref);
  const payment = paymentId === null ? undefined : await Payment.query(deps.knex).findById(paymentId);
  // Where the sandbox is off, its payments have no page: nothing there can mark one paid.
  if (!payment || !providerOffered(deps.config, payment.provider)) return { kind: 'not_found' };
  const checkout = await Checkout.query(deps.knex).findById(payment.checkout_id);
  if (!checkout) return { kind: 'not_found' };
  const summary = await summaryOf(deps, checkout);
  const order = await Order.query(deps.knex).findOne({ checkout_id: checkout.id });
  // A paid order refunded or cancelled since: said so, never "payment received".
  const withdrawn =
    order && (payment.status === 'paid' || payment.status === 'refunded')
      ? await withdrawnOf(deps.knex, summary, order)
      : null;
  if (withdrawn) return withdrawn;

  if (payment.status === 'paid') {
    return {
      kind: 'paid',
      summary,
      checkoutId: checkout.id,
      orderId: order?.id ?? null,
      orderNumber: order?.number ?? null,
      delivery: await deliveryOf(deps, checkout),
      document: order ? await documentLink(deps.knex, urlDepsOf(deps), order.id) : null,
    };
  }
  if (order) return { kind: 'closed', summary, orderId: order.id };
  const payable =
    (checkout.status === 'created' || checkout.status === 'payment_initiated') &&
    new Date(checkout.expires_at) > now;
  if (
    payment.provider === 'sandbox' &&
    !opts.returning &&
    (payment.status === 'pending' || payment.status === 'initiated') &&
    (await sandboxStillOpen(deps, payment.provider_payment_id))
  ) {
    return { kind: 'sandbox', summary, checkoutId: checkout.id };
  }
  switch (payment.status) {
    case 'pending':
      return { kind: 'waiting', reason: 'creating', summary, continueUrl: null, checkoutId: checkout.id };
    case 'initiated':
      if (!payment.provider_url)
        return { kind: 'waiting', reason: 'creating', summary, continueUrl: null, checkoutId: checkout.id };
      if (!opts.returning) return { kind: 'forward', url: payment.provider_url, checkoutId: checkout.id };
      // Back from the provider: ask it now rather than wait for the webhook (one job per 15 s at most).
      // A page view writes nothing: no transaction exists to stage the job in.
      await enqueue(
        deps.queues,
        'payments',
        { kind: 'reconcile', paymentId: payment.id, reason: 'return' },
        { jobId: `payment-reconcile-${payment.id}-return-${Math.floor(now.getTime() / 15_000)}` },
      );
      return {
        kind: 'waiting',
        reason: 'confirming',
        summary,
        continueUrl: payment.provider_url,
        checkoutId: checkout.id,
      };
    default:
      return {
        kind: 'failed',
        summary,
        message:
          payment.status === 'expired'
            ? 'This payment session has expired.'
            : (payment.error_message ?? GENERIC_FAILURE),
        method: methodName(payment.method),
        methodId: payment.method,
        retryable: payable,
      };
  }
}

/** POST /pay/payments/:ref/retry: a new payment of the same checkout with the same method. */
export async function retryPayment(deps: PaymentsDeps, ref: string): Promise<PageAction> {
  const paymentId = new PaymentPageRefs(deps.appSecret, deps.appSecretPrevious).parse(ref);
  const payment = paymentId === null ? undefined : await Payment.query(deps.knex).findById(paymentId);
  if (!payment) return { kind: 'error', status: 404, message: CHECKOUT_NOT_FOUND };
  try {
    const initiation = await initiatePayment(deps, { checkoutId: payment.checkout_id }, payment.method);
    return await actionFor(deps, initiation, payment.checkout_id);
  } catch (err) {
    return refusal(err);
  }
}
