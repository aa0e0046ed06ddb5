import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  Checkout,
  CheckoutUpload,
  Coupon,
  Customer,
  ORDER_STATUS,
  Order,
  Product,
  ProductPlan,
  Store,
} from '../../../db/models';
import type { Config } from '../../config';
import { randomToken, sha256 } from '../../crypto';
import { FieldErrors, InvalidError, ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import { formatMoney } from '../../money';
import type { Queues } from '../../queues';
import { enqueueFulfilment } from '../fulfilment/enqueue';
import { assertRequestMayStartWork } from '../../request-deadline';
import type { StorageDriver } from '../../storage';
import { customFieldsOf, findSellableProduct, stockOf } from '../catalog';
import { resolveCoupon } from '../coupons';
import { AcceptedUpload, checkCustomFields, IncomingUpload } from '../custom-fields';
import { KIND_INFO } from '../custom-fields/uploads';
import { createOrderFromCheckout } from '../orders/create-from-checkout';
import { priceCheckout, PriceBreakdown, subtotalOf, unitPrice } from '../pricing';
import { availablePaymentMethods, PaymentMethodView } from '../payment-methods';

/**
 * Checkout sessions of the Embed API (POST /api/embed/checkout and /api/embed/guest/checkout).
 *
 * A checkout fixes the price (see services/pricing) and holds what it sells until it is paid or expires:
 * - a `code` product reserves `quantity` available keys (`product_codes.status = reserved`, with this
 *   checkout's id), picked with FOR UPDATE SKIP LOCKED so simultaneous checkouts never take one key twice;
 * - a product with finite `stock` takes the units at once with one conditional UPDATE
 *   (`stock = stock - q where stock >= q`), and the checkout is marked `reserved`;
 * - not enough keys or units: 400 "Insufficient stock", nothing written.
 * The `expire-checkouts` maintenance task gives both back when the checkout expires.
 *
 * `checkout_url` is a 256-bit random secret (the status endpoint is public); only its SHA-256 is stored.
 * A checkout lives CHECKOUT_TTL_SECONDS; after that it is not found (findLiveCheckout).
 *
 * A total of zero creates the order in the same transaction (free_order) and enqueues its fulfilment;
 * should the coupon have been used up meanwhile, everything rolls back and the answer is 400
 * "Coupon has reached maximum uses".
 */

export const INSUFFICIENT_STOCK = 'Insufficient stock';
export const NO_PAYMENT_METHOD = 'No payment method is available for this order';
export const FREE_ORDER_MESSAGE = 'Order created successfully';
/** Spec: quantity min 1; the upper bound keeps amounts far from integer limits and stops absurd orders. */
export const MAX_QUANTITY = 10_000;

export interface CheckoutDeps {
  knex: Knex;
  queues: Queues;
  config: Pick<Config, 'checkoutTtlSeconds' | 'publicBaseUrl'>;
  storage: StorageDriver;
  logger: Logger;
}

export interface CheckoutInput {
  product_id: number;
  quantity: number;
  coupon_code?: string;
  customer_note?: string;
  subscription_plan?: number;
  fields?: Record<string, unknown>;
}

/** Who is buying: the token's customer (authenticated checkout) or the guest's own details. */
export interface Buyer {
  customerId: number | null;
  firstName: string;
  lastName: string;
  email: string;
  countryCode: string;
  phone: string;
}

export function buyerFromCustomer(customer: Customer): Buyer {
  return {
    customerId: customer.id,
    firstName: customer.first_name,
    lastName: customer.last_name,
    email: customer.email,
    countryCode: customer.country_code,
    phone: customer.phone,
  };
}

interface Amounts {
  amount: string;
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
}

export type CheckoutResult =
  | ({
      type: 'payment_required';
      checkout_id: number;
      checkout_url: string;
      payment_url: string;
      payment_methods: PaymentMethodView[];
    } & Amounts)
  | ({
      type: 'free_order';
      order_id: number;
      message: string;
      checkout_url: string;
      payment_methods: PaymentMethodView[];
    } & Amounts);

function amounts(price: PriceBreakdown): Amounts {
  return {
    amount: formatMoney(price.totalMinor),
    subtotal: formatMoney(price.subtotalMinor),
    discount_amount: formatMoney(price.discountMinor),
    tax_amount: formatMoney(price.taxMinor),
  };
}

/** The plan the checkout is for; a subscription product needs one (422 on `subscription_plan`). */
async function choosePlan(
  knex: Knex,
  product: Product,
  planId: number | undefined,
  errors: FieldErrors,
): Promise<ProductPlan | undefined> {
  if (planId === undefined) {
    if (product.type === 'subscription') {
      errors.subscription_plan = ['The subscription plan is required for a subscription product.'];
    }
    return undefined;
  }
  const plan = await ProductPlan.query(knex).findOne({ id: planId, product_id: product.id, active: true });
  if (!plan) errors.subscription_plan = ['The selected subscription plan is not a plan of this product.'];
  return plan;
}

/** Takes the keys or units this checkout sells; throws Insufficient stock when they are not there. */
async function reserve(trx: Knex.Transaction, product: Product, checkout: Checkout): Promise<void> {
  if (product.type === 'code') {
    const ids = await trx('product_codes')
      .where({ product_id: product.id, status: 'available' })
      .orderBy('id')
      .limit(checkout.quantity)
      .forUpdate()
      .skipLocked()
      .pluck<number[]>('id');
    if (ids.length < checkout.quantity) throw new InvalidError(INSUFFICIENT_STOCK);
    await trx('product_codes').whereIn('id', ids).update({ status: 'reserved', checkout_id: checkout.id });
    return;
  }
  if (!checkout.reserved) return;
  const taken = await trx('products')
    .where('id', product.id)
    .andWhere('stock', '>=', checkout.quantity)
    .decrement('stock', checkout.quantity);
  if (taken === 0) throw new InvalidError(INSUFFICIENT_STOCK);
}

/** Copies accepted uploads into storage; returns their keys (removed again if the checkout fails). */
async function storeUploads(
  storage: StorageDriver,
  uploads: readonly AcceptedUpload[],
): Promise<{ upload: AcceptedUpload; key: string }[]> {
  const folder = `checkouts/${crypto.randomBytes(16).toString('hex')}`;
  const stored: { upload: AcceptedUpload; key: string }[] = [];
  try {
    for (const upload of uploads) {
      const key = `${folder}/field-${upload.fieldIndex}.${KIND_INFO[upload.kind].extensions[0]}`;
      await storage.put(key, upload.tempPath, upload.mime);
      stored.push({ upload, key });
    }
    return stored;
  } catch (err) {
    await Promise.allSettled(stored.map((s) => storage.delete(s.key)));
    throw err;
  }
}

/**
 * Opens a checkout (or, at a total of zero, creates the order). Checks run before anything is written:
 * 422 for invalid input (product, plan, custom fields and files, all reported together), then 400 for
 * the coupon, stock and payment-method answers.
 */
export async function createCheckout(
  deps: CheckoutDeps,
  store: Store,
  buyer: Buyer,
  input: CheckoutInput,
  incoming: readonly IncomingUpload[] = [],
): Promise<CheckoutResult> {
  const { knex } = deps;
  const product = await findSellableProduct(knex, store.id, input.product_id);
  if (!product) throw ValidationError.field('product_id', 'The selected product id is invalid.');

  const errors: FieldErrors = {};
  const plan = await choosePlan(knex, product, input.subscription_plan, errors);
  const fields = await checkCustomFields(customFieldsOf(product), input.fields ?? {}, incoming);
  Object.assign(errors, fields.errors);
  const subtotalMinor = subtotalOf(unitPrice(product, plan), fields.addonsMinor, input.quantity);
  if (subtotalMinor === null) errors.quantity = ['The quantity is too large.'];
  if (Object.keys(errors).length > 0 || subtotalMinor === null) throw new ValidationError(errors);

  // Answers early for the common case; the reservation in the transaction is what counts.
  const inStock = await stockOf(knex, product);
  if (inStock !== null && input.quantity > inStock) throw new InvalidError(INSUFFICIENT_STOCK);

  const code = input.coupon_code?.trim();
  const coupon: Coupon | null = code
    ? await resolveCoupon(knex, store.id, code, product.id, subtotalMinor)
    : null;
  const price = priceCheckout({
    unitPriceMinor: unitPrice(product, plan),
    addonsMinor: fields.addonsMinor,
    quantity: input.quantity,
    coupon,
    tax: { mode: store.tax_mode, rateBp: store.tax_rate_bp },
  });
  const free = price.totalMinor === 0;
  const methods = free
    ? []
    : await availablePaymentMethods(knex, store.id, {
        amountMinor: price.totalMinor,
        restrictions: coupon?.payment_restrictions ?? [],
      });
  if (!free && methods.length === 0) throw new InvalidError(NO_PAYMENT_METHOD);

  const checkoutUrl = randomToken(32);
  // Nothing is reserved for a request whose client has gone or that outlived its budget.
  assertRequestMayStartWork();
  const stored = await storeUploads(deps.storage, fields.uploads);
  let outcome: { checkout: Checkout; order: Order | null };
  try {
    outcome = await knex.transaction(async (trx) => {
      const checkout = await Checkout.query(trx).insertAndFetch({
        store_id: store.id,
        token_hash: sha256(checkoutUrl),
        source: 'embed',
        customer_id: buyer.customerId,
        customer_first_name: buyer.firstName,
        customer_last_name: buyer.lastName,
        customer_email: buyer.email,
        customer_country_code: buyer.countryCode,
        customer_phone: buyer.phone,
        product_id: product.id,
        plan_id: plan?.id ?? null,
        quantity: input.quantity,
        unit_price_minor: price.unitPriceMinor,
        addons_minor: price.addonsMinor,
        subtotal_minor: price.subtotalMinor,
        discount_minor: price.discountMinor,
        tax_minor: price.taxMinor,
        total_minor: price.totalMinor,
        currency: store.currency,
        coupon_id: coupon?.id ?? null,
        customer_note: input.customer_note ?? null,
        fields: fields.values,
        status: 'created',
        reserved: product.type !== 'code' && product.stock !== null,
        expires_at: new Date(Date.now() + deps.config.checkoutTtlSeconds * 1000),
      });
      await reserve(trx, product, checkout);
      for (const { upload, key } of stored) {
        await CheckoutUpload.query(trx).insert({
          checkout_id: checkout.id,
          field_index: upload.fieldIndex,
          storage_driver: deps.storage.name,
          storage_key: key,
          original_name: upload.originalName.slice(0, 255),
          mime_type: upload.mime,
          size_bytes: upload.size,
        });
      }
      if (!free) return { checkout, order: null };
      // Free orders are paid in full by their discount: the order goes straight to fulfilment.
      const { order } = await createOrderFromCheckout(trx, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentMethod: null,
        paymentId: null,
        logger: deps.logger,
      });
      return { checkout, order };
    });
  } catch (err) {
    await Promise.allSettled(stored.map((s) => deps.storage.delete(s.key)));
    throw err;
  }

  if (outcome.order) {
    // The order exists once the transaction has committed; a Redis hiccup here must not turn that into
    // an error for the customer (the payments sweep enqueues it again).
    const orderId = outcome.order.id;
    await enqueueFulfilment(deps.queues, orderId).catch((err: unknown) =>
      deps.logger.error({ err, orderId }, 'could not enqueue fulfilment of a free order'),
    );
    return {
      type: 'free_order',
      order_id: outcome.order.id,
      message: FREE_ORDER_MESSAGE,
      checkout_url: checkoutUrl,
      ...amounts(price),
      payment_methods: [],
    };
  }
  return {
    type: 'payment_required',
    checkout_id: outcome.checkout.id,
    checkout_url: checkoutUrl,
    payment_url: paymentUrl(deps.config.publicBaseUrl, checkoutUrl),
    ...amounts(price),
    payment_methods: methods,
  };
}

/** The hosted payment page of a checkout. */
export function paymentUrl(publicBaseUrl: string, checkoutUrl: string): string {
  return `${publicBaseUrl}/pay/${encodeURIComponent(checkoutUrl)}`;
}

/**
 * The checkout named by `checkoutUrl` while it can still be acted on, or null (callers answer 404):
 * - an unpaid checkout (created, payment_initiated) until its expires_at;
 * - a paid checkout at any time, so status polling keeps answering is_paid after the lifetime;
 * - expired and cancelled checkouts never.
 * `storeId` limits the lookup to one store (embed-key routes); null looks in every store (the public
 * status endpoint, where the secret itself is the credential).
 */
export async function findLiveCheckout(
  storeId: number | null,
  checkoutUrl: string,
  knex?: Knex,
  now: Date = new Date(),
): Promise<Checkout | null> {
  if (typeof checkoutUrl !== 'string' || checkoutUrl.length === 0 || checkoutUrl.length > 200) return null;
  const query = Checkout.query(knex).findOne({ token_hash: sha256(checkoutUrl) });
  if (storeId !== null) query.where('store_id', storeId);
  const checkout = await query;
  if (!checkout) return null;
  if (checkout.status === 'paid') return checkout;
  const unpaid = checkout.status === 'created' || checkout.status === 'payment_initiated';
  return unpaid && new Date(checkout.expires_at) > now ? checkout : null;
}
