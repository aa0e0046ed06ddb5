import type { TxDeps, UnitOfWork } from '../../unit-of-work';
import { noteStockChangedOn } from '../catalogue/cache';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import {
  Checkout,
  CheckoutItem,
  CheckoutUpload,
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
import { playerFieldError } from '../fulfilment/fivem';
import { dispatchStaged, StagedJob } from '../../queues/outbox';
import { stageFulfilment } from '../fulfilment/enqueue';
import { assertMayStartWork, RequestBudget } from '../../request-deadline';
import type { StorageDriver } from '../../storage';
import { customFieldsOf, findSellableProduct, stockOf } from '../catalogue';
import { reserveCouponUse, resolveCouponForProducts } from '../coupons';
import { AcceptedUpload, checkCustomFields, FieldCheckResult, IncomingUpload } from '../custom-fields';
import { KIND_INFO } from '../custom-fields/uploads';
import { createOrderFromCheckout } from '../orders/create-from-checkout';
import { assertHoldsWithinCap } from './holds';
import type { Buyer } from './buyer';
import { PriceBreakdown, priceLines, subtotalOf, unitPrice } from '../pricing';
import { availablePaymentMethods, PaymentMethodView } from '../payment-methods';
import { withTimedSales } from '../pricing/sales';
import { creatorCreditOf } from '../growth/creator-ledger';
import { CheckoutBlockedError, enforceLimits, recordRefusal, ScreenContext } from '../fraud/screen';
import { screenCheckoutBuyer } from '../fraud';

/**
 * Checkout sessions: the Embed API's (POST /api/embed/checkout and /api/embed/guest/checkout, one line,
 * createCheckout) and the Storefront's (POST /api/checkout, one line per cart line, openCheckout). Both
 * are openCheckout: the same checks, pricing, reservation, answer and order creation.
 *
 * A checkout fixes the price (see services/pricing) and holds what it sells until it is paid or expires,
 * for every line at once or for none (one transaction):
 * - a `code` product reserves `quantity` available keys (`product_codes.status = reserved`, with this
 *   checkout's id), picked with FOR UPDATE SKIP LOCKED so simultaneous checkouts never take one key twice;
 * - a product with finite `stock` takes the units at once with one conditional UPDATE
 *   (`stock = stock - q where stock >= q`), and the line and the checkout are marked `reserved`;
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

export * from './buyer';

export const INSUFFICIENT_STOCK = 'Insufficient stock';
export const NO_PAYMENT_METHOD = 'No payment method is available for this order';
export const FREE_ORDER_MESSAGE = 'Order created successfully';
export const EMPTY_CHECKOUT = 'Nothing to check out';
/** Spec: quantity min 1; the upper bound keeps amounts far from integer limits and stops absurd orders. */
export const MAX_QUANTITY = 10_000;

/**
 * The most units of `product` one checkout or cart line may hold (`products.max_per_order`, default 10):
 * the field error to report beyond it, or null. Bounds what one unpaid checkout can lock up.
 */
export function maxPerOrderError(product: Pick<Product, 'max_per_order'>, quantity: number): string | null {
  const max = product.max_per_order ?? 10;
  return quantity > max ? `At most ${max} of this product can be bought in one order.` : null;
}

export interface CheckoutDeps extends TxDeps {
  knex: Knex;
  queues: Queues;
  config: Pick<
    Config,
    | 'checkoutTtlSeconds'
    | 'publicBaseUrl'
    | 'sandboxEnabled'
    | 'checkoutHoldsPerIp'
    | 'checkoutHoldsPerPhone'
    | 'rateLimitsEnabled'
  >;
  storage: StorageDriver;
  logger: Logger;
  /** The HTTP request's budget (api/request-deps.ts): nothing is reserved once it is spent. */
  budget?: RequestBudget;
  /** The buyer's client address (Embed, Storefront); unset for checkouts a merchant opens. */
  clientIp?: string;
}

export interface CheckoutInput {
  product_id: number;
  quantity: number;
  coupon_code?: string;
  /** A creator's code (docs/growth.md, "Creator codes"): credits that creator. */
  creator_code?: string;
  customer_note?: string;
  subscription_plan?: number;
  fields?: Record<string, unknown>;
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
      /** Shows the goods once paid, to this browser only (shared/services/reveal). */
      reveal_token: string;
      payment_methods: PaymentMethodView[];
    } & Amounts)
  | ({
      type: 'free_order';
      order_id: number;
      message: string;
      checkout_url: string;
      reveal_token: string;
      payment_methods: PaymentMethodView[];
    } & Amounts);

function amounts(
  price: Pick<PriceBreakdown, 'totalMinor' | 'subtotalMinor' | 'discountMinor' | 'taxMinor'>,
  currency: string,
): Amounts {
  return {
    amount: formatMoney(price.totalMinor, currency),
    subtotal: formatMoney(price.subtotalMinor, currency),
    discount_amount: formatMoney(price.discountMinor, currency),
    tax_amount: formatMoney(price.taxMinor, currency),
  };
}

/** The plan a line is for; a subscription product needs one (422 on `subscription_plan`). */
async function choosePlan(
  knex: Knex,
  product: Product,
  planId: number | undefined,
  errors: FieldErrors,
  key: string,
): Promise<ProductPlan | undefined> {
  if (planId === undefined) {
    if (product.type === 'subscription') {
      errors[key] = ['The subscription plan is required for a subscription product.'];
    }
    return undefined;
  }
  const plan = await ProductPlan.query(knex).findOne({ id: planId, product_id: product.id, active: true });
  if (!plan) errors[key] = ['The selected subscription plan is not a plan of this product.'];
  return plan;
}

/**
 * Takes the keys or units one line sells; throws Insufficient stock when they are not there. Returns
 * whether finite stock units were taken (the line's `reserved`).
 */
async function reserve(
  uow: UnitOfWork,
  product: Product,
  checkoutId: number,
  quantity: number,
): Promise<boolean> {
  const { trx } = uow;
  // The product answer shows stock: its counter moves once this reservation commits (catalogue/cache.ts).
  noteStockChangedOn(uow, [product.id]);
  if (product.type === 'code') {
    const ids = await trx('product_codes')
      .where({ product_id: product.id, status: 'available' })
      .orderBy('id')
      .limit(quantity)
      .forUpdate()
      .skipLocked()
      .pluck<number[]>('id');
    if (ids.length < quantity) throw new InvalidError(INSUFFICIENT_STOCK).withCode('out_of_stock');
    await trx('product_codes').whereIn('id', ids).update({ status: 'reserved', checkout_id: checkoutId });
    return false;
  }
  if (product.stock === null) return false;
  const taken = await trx('products')
    .where('id', product.id)
    .andWhere('stock', '>=', quantity)
    .decrement('stock', quantity);
  if (taken === 0) throw new InvalidError(INSUFFICIENT_STOCK).withCode('out_of_stock');
  return true;
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
 * POST /api/embed/checkout and /api/embed/guest/checkout: a checkout of one product, the one-line case of
 * openCheckout. Input errors keep the Embed API's field names (`product_id`, `fields.2`, ...).
 */
export async function createCheckout(
  deps: CheckoutDeps,
  store: Store,
  buyer: Buyer,
  input: CheckoutInput,
  incoming: readonly IncomingUpload[] = [],
  /** Who opened it: the Merchant API opens checkouts for its customers (`merchant`). */
  opts: { source?: Checkout['source'] } = {},
): Promise<CheckoutResult> {
  const { coupon_code, creator_code, customer_note, ...line } = input;
  return openCheckout(
    deps,
    store,
    buyer,
    { lines: [line], coupon_code, creator_code, customer_note, source: opts.source ?? 'embed' },
    incoming,
  );
}

/** One line of a checkout as asked for: a product, its quantity, plan and custom field values. */
export interface CheckoutLineInput {
  product_id: number;
  quantity: number;
  subscription_plan?: number;
  fields?: Record<string, unknown>;
}

export interface OpenCheckoutInput {
  lines: readonly CheckoutLineInput[];
  coupon_code?: string;
  /** A creator's code; a `coupon_code` equal to one credits that creator too (growth/creators.ts). */
  creator_code?: string;
  customer_note?: string;
  source: Checkout['source'];
  /**
   * Field names of a line's input errors: the Embed API names them as they are (`product_id`), the
   * Storefront by line (`items.0.product_id`). Defaults by the number of lines.
   */
  errorKey?: (line: number, field: string) => string;
}

/** A line once its product, plan and fields have been checked, with its price. */
interface PreparedLine {
  product: Product;
  plan: ProductPlan | undefined;
  quantity: number;
  unitPriceMinor: number;
  addonsMinor: number;
  subtotalMinor: number;
  fields: FieldCheckResult;
}

/** Checks every line (422, all lines' errors together) and prices it; file uploads belong to line 0. */
async function prepareLines(
  knex: Knex,
  store: Store,
  input: OpenCheckoutInput,
  incoming: readonly IncomingUpload[],
): Promise<PreparedLine[]> {
  const key =
    input.errorKey ??
    (input.lines.length === 1 ? (_i: number, f: string) => f : (i: number, f: string) => `items.${i}.${f}`);
  const products: Product[] = [];
  for (const [i, line] of input.lines.entries()) {
    const product = await findSellableProduct(knex, store.id, line.product_id);
    if (!product) throw ValidationError.field(key(i, 'product_id'), 'The selected product id is invalid.');
    products.push(product);
  }
  // Timed sales lower the sale price of what they cover (docs/growth.md): the unit price below charges it.
  await withTimedSales(knex, store.id, products);

  const errors: FieldErrors = {};
  const prepared: PreparedLine[] = [];
  for (const [i, line] of input.lines.entries()) {
    const product = products[i]!;
    const plan = await choosePlan(knex, product, line.subscription_plan, errors, key(i, 'subscription_plan'));
    const fields = await checkCustomFields(
      customFieldsOf(product),
      line.fields ?? {},
      i === 0 ? incoming : [],
    );
    for (const [field, messages] of Object.entries(fields.errors)) errors[key(i, field)] = messages;
    const player = await playerFieldError(knex, product, customFieldsOf(product), line.fields ?? {});
    if (player && !errors[key(i, player.field)]) errors[key(i, player.field)] = [player.message];
    const unitPriceMinor = unitPrice(product, plan);
    const subtotalMinor = subtotalOf(unitPriceMinor, fields.addonsMinor, line.quantity);
    if (subtotalMinor === null) errors[key(i, 'quantity')] = ['The quantity is too large.'];
    const overMax = maxPerOrderError(product, line.quantity);
    if (overMax) errors[key(i, 'quantity')] = [overMax];
    prepared.push({
      product,
      plan,
      quantity: line.quantity,
      unitPriceMinor,
      addonsMinor: fields.addonsMinor,
      subtotalMinor: subtotalMinor ?? 0,
      fields,
    });
  }
  const total = prepared.reduce((sum, l) => sum + l.subtotalMinor, 0);
  if (!Number.isSafeInteger(total)) errors[key(0, 'quantity')] = ['The quantity is too large.'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return prepared;
}

/** Answers Insufficient stock early for the common case; the reservation in the transaction is what counts. */
async function assertInStock(knex: Knex, lines: readonly PreparedLine[]): Promise<void> {
  const wanted = new Map<number, { product: Product; units: number }>();
  for (const line of lines) {
    const entry = wanted.get(line.product.id) ?? { product: line.product, units: 0 };
    entry.units += line.quantity;
    wanted.set(line.product.id, entry);
  }
  for (const { product, units } of wanted.values()) {
    const inStock = await stockOf(knex, product);
    if (inStock !== null && units > inStock)
      throw new InvalidError(INSUFFICIENT_STOCK).withCode('out_of_stock');
  }
}

/**
 * Opens a checkout of one or several lines (or, at a total of zero, creates the order). Checks run before
 * anything is written: 422 for invalid input (products, plans, custom fields and files, all reported
 * together), then 400 for the coupon, stock and payment-method answers. Every line's keys and stock are
 * reserved in one transaction: all of them or none.
 */
export async function openCheckout(
  deps: CheckoutDeps,
  store: Store,
  buyer: Buyer,
  input: OpenCheckoutInput,
  incoming: readonly IncomingUpload[] = [],
): Promise<CheckoutResult> {
  const { knex } = deps;
  if (input.lines.length === 0) throw new InvalidError(EMPTY_CHECKOUT);
  // Fraud controls (shared/services/fraud, docs/fraud.md): the block lists before anything is written.
  const screen: ScreenContext = {
    storeId: store.id,
    source: input.source,
    clientIp: deps.clientIp ?? null,
    buyer: { email: buyer.email, countryCode: buyer.countryCode, phone: buyer.phone },
  };
  const fraud = await screenCheckoutBuyer(deps, screen);
  const lines = await prepareLines(knex, store, input, incoming);
  await assertInStock(knex, lines);

  const subtotalMinor = lines.reduce((sum, l) => sum + l.subtotalMinor, 0);
  const code = input.coupon_code?.trim();
  const credit = await creatorCreditOf(knex, store.id, input.creator_code, code);
  const coupon =
    code && !credit.couponIsCreator
      ? await resolveCouponForProducts(
          knex,
          store.id,
          code,
          lines.map((l) => l.product.id),
          subtotalMinor,
        )
      : null;
  const price = priceLines(
    lines.map((l) => ({
      unitPriceMinor: l.unitPriceMinor,
      addonsMinor: l.addonsMinor,
      quantity: l.quantity,
      discountable:
        coupon === null || coupon.productIds.length === 0 || coupon.productIds.includes(l.product.id),
    })),
    // Without a coupon of its own, the buyer gets the creator's discount when the creator gives one.
    coupon?.coupon ?? (credit.discountBp ? { type: 'percentage', amount: credit.discountBp } : null),
    { mode: store.tax_mode, rateBp: store.tax_rate_bp },
  );
  const free = price.totalMinor === 0;
  const methods = free
    ? []
    : await availablePaymentMethods(
        knex,
        store.id,
        { amountMinor: price.totalMinor, restrictions: coupon?.coupon.payment_restrictions ?? [] },
        deps.config,
      );
  if (!free && methods.length === 0) throw new InvalidError(NO_PAYMENT_METHOD).withCode('no_payment_method');

  const checkoutUrl = randomToken(32);
  // Kept by the browser that checks out: it alone sees the goods after paying (shared/services/reveal).
  const revealToken = randomToken(32);
  // Nothing is reserved for a request whose client has gone or that outlived its budget.
  assertMayStartWork(deps.budget);
  const stored = await storeUploads(deps.storage, lines[0]!.fields.uploads);
  let outcome: { checkout: Checkout; order: Order | null; staged: StagedJob[] };
  try {
    outcome = await deps.tx(async (uow) => {
      const { trx } = uow;
      const first = lines[0]!;
      // The limits, counted under the buyer's lock before this checkout is written (fraud/screen.ts).
      if (fraud) {
        await enforceLimits(trx, fraud, {
          ...screen,
          lines: lines.map((l) => ({ productId: l.product.id, quantity: l.quantity })),
          totalMinor: price.totalMinor,
          currency: store.currency,
        });
      }
      // The checkout's own line columns describe its first line (see checkout_items).
      // RETURNING *: the row as stored in the same round trip (insertAndFetch would read it again).
      const checkout = await Checkout.query(trx)
        .insert({
          store_id: store.id,
          token_hash: sha256(checkoutUrl),
          reveal_token_hash: sha256(revealToken),
          source: input.source,
          customer_id: buyer.customerId,
          customer_first_name: buyer.firstName,
          customer_last_name: buyer.lastName,
          customer_email: buyer.email,
          customer_country_code: buyer.countryCode,
          customer_phone: buyer.phone,
          locale: buyer.locale ?? null,
          product_id: first.product.id,
          plan_id: first.plan?.id ?? null,
          quantity: first.quantity,
          unit_price_minor: first.unitPriceMinor,
          addons_minor: first.addonsMinor,
          subtotal_minor: price.subtotalMinor,
          discount_minor: price.discountMinor,
          tax_minor: price.taxMinor,
          tax_rate_bp: store.tax_mode === 'none' ? 0 : store.tax_rate_bp,
          total_minor: price.totalMinor,
          currency: store.currency,
          coupon_id: coupon?.coupon.id ?? null,
          creator_id: credit.creator?.id ?? null,
          customer_note: input.customer_note ?? null,
          fields: first.fields.values,
          status: 'created',
          reserved: false,
          coupon_reserved: coupon !== null,
          client_ip: deps.clientIp ?? null,
          expires_at: new Date(Date.now() + deps.config.checkoutTtlSeconds * 1000),
        })
        .returning('*');
      let anyReserved = false;
      for (const [position, line] of lines.entries()) {
        const reserved = await reserve(uow, line.product, checkout.id, line.quantity);
        anyReserved ||= reserved;
        await CheckoutItem.query(trx).insert({
          checkout_id: checkout.id,
          position,
          product_id: line.product.id,
          plan_id: line.plan?.id ?? null,
          quantity: line.quantity,
          unit_price_minor: line.unitPriceMinor,
          addons_minor: line.addonsMinor,
          subtotal_minor: line.subtotalMinor,
          fields: line.fields.values,
          reserved,
        });
      }
      if (coupon) await reserveCouponUse(trx, coupon.coupon.id);
      if (anyReserved) {
        await Checkout.query(trx).patch({ reserved: true }).where('id', checkout.id);
        checkout.reserved = true;
      }
      // A buyer's unpaid checkouts that hold something are capped (checkout/holds.ts); a merchant's are not.
      if (!free && (anyReserved || coupon !== null) && input.source !== 'merchant') {
        await assertHoldsWithinCap(trx, deps.config, {
          storeId: store.id,
          clientIp: deps.clientIp ?? null,
          countryCode: buyer.countryCode,
          phone: buyer.phone,
          checkoutId: checkout.id,
        });
      }
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
      if (!free) return { checkout, order: null, staged: [] };
      // Free orders are paid in full by their discount: the order goes straight to fulfilment.
      const { order } = await createOrderFromCheckout(uow, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentMethod: null,
        paymentId: null,
        logger: deps.logger,
      });
      return { checkout, order, staged: [await stageFulfilment(trx, order.id)] };
    });
  } catch (err) {
    await Promise.allSettled(stored.map((s) => deps.storage.delete(s.key)));
    if (err instanceof CheckoutBlockedError) await recordRefusal(knex, screen, err.refusal, deps.logger);
    throw err;
  }

  if (outcome.order) {
    // The order and its fulfilment job committed together; a Redis hiccup here leaves the job to the
    // outbox relay rather than turning the order into an error for the customer.
    await dispatchStaged(deps, outcome.staged);
    return {
      type: 'free_order',
      order_id: outcome.order.id,
      message: FREE_ORDER_MESSAGE,
      checkout_url: checkoutUrl,
      reveal_token: revealToken,
      ...amounts(price, store.currency),
      payment_methods: [],
    };
  }
  return {
    type: 'payment_required',
    checkout_id: outcome.checkout.id,
    checkout_url: checkoutUrl,
    payment_url: paymentUrl(deps.config.publicBaseUrl, checkoutUrl),
    reveal_token: revealToken,
    ...amounts(price, store.currency),
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
  knex: Knex,
  storeId: number | null,
  checkoutUrl: string,
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
