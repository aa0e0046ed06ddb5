import { readStamp, type HotReadDeps } from '../../cache/versioned';
import { CATALOG_ALL, productCounter, storeCounter } from './cache';
import type { Knex } from 'knex';
import { Category, CustomField, Product, ProductPlan, Store } from '../../../db/models';
import { NotFoundError, ValidationError } from '../../errors';
import { formatDisplay, formatMoney, toMajorNumber } from '../../money';
import { activeMethods, paymentMethodView, PaymentMethodView, type MethodOffer } from '../payment-methods';
import { UPLOAD_RULES } from '../custom-fields/uploads';
import { withTimedSales } from '../pricing/sales';

/**
 * The product as the Embed API's checkout interface needs it (GET /api/embed/product/{id}): prices in the
 * spec's price object (numbers) and every amount a customer can add on top as a decimal string.
 *
 * Stock: a `code` product's stock is its count of available keys (its `stock` column is not used); any
 * other product has `stock` units, null meaning unlimited.
 */

export interface PriceView {
  original: number;
  actual: number;
  formatted: string;
  currency: string;
}

export interface CustomFieldView {
  index: number;
  type: CustomField['type'];
  label: string;
  /** The Arabic label (docs/store-pages.md); the Embed product answers Arabic readers with it as `label`. */
  label_ar: string | null;
  required: boolean;
  options: { index: number; label: string; label_ar: string | null; price: string }[];
  /** image and file fields: the extensions and the largest size accepted. */
  upload: { accept: string[]; max_size_bytes: number } | null;
}

export interface PlanView {
  id: number;
  name: string;
  price: string;
  price_formatted: string;
  duration: ProductPlan['duration'];
}

export interface ProductView {
  id: number;
  name: string;
  /** The Arabic name and description (docs/store-pages.md); null when the merchant gave none. */
  name_ar: string | null;
  slug: string;
  description: string | null;
  description_ar: string | null;
  type: Product['type'];
  currency: string;
  price: PriceView;
  stock: { is_in_stock: boolean; quantity: number | null };
  /** Most units one checkout line may take: a widget caps its quantity input with it. */
  max_per_order: number;
  image: { url: string | null };
  categories: { id: number; name: string; slug: string }[];
  fields: CustomFieldView[];
  subscription_plans: PlanView[];
  payment_methods: (PaymentMethodView & { min_amount: string | null; max_amount: string | null })[];
  /**
   * Whether a buyer can complete a purchase now (docs/widget.md, "Not purchasable yet"): false when the
   * product costs something and the store has no payment method on, or when it is out of stock.
   */
  purchasable: boolean;
  /** Why not: `no_payment_method` or `out_of_stock`; null when purchasable. */
  not_purchasable_reason: NotPurchasableReason | null;
  /** The store's digits for Arabic text (`stores.digits`, docs/widget.md, "Digits"). */
  digits?: 'western' | 'arabic_indic';
}

export type NotPurchasableReason = 'no_payment_method' | 'out_of_stock';

/**
 * Why a product cannot be bought now, or null: a product that costs something (its price, or a plan's)
 * needs a payment method the store has on; any product needs stock.
 */
export function notPurchasableReason(
  actualMinor: number,
  planPricesMinor: readonly number[],
  methodCount: number,
  inStock: boolean,
): NotPurchasableReason | null {
  const costs = actualMinor > 0 || planPricesMinor.some((p) => p > 0);
  if (costs && methodCount === 0) return 'no_payment_method';
  if (!inStock) return 'out_of_stock';
  return null;
}

/** The product's custom fields; anything but an array (a row written without them) means none. */
export function customFieldsOf(product: Pick<Product, 'fields'>): CustomField[] {
  return Array.isArray(product.fields) ? product.fields : [];
}

/** Product ids are positive 32-bit integers; anything else cannot name a product. */
export function parseProductId(raw: unknown): number | null {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^[1-9]\d{0,9}$/.test(text)) return null;
  const id = Number(text);
  return id <= 2_147_483_647 ? id : null;
}

/** An active product of this store, or undefined. */
export async function findSellableProduct(
  knex: Knex,
  storeId: number,
  productId: number,
): Promise<Product | undefined> {
  return Product.query(knex).findOne({ id: productId, store_id: storeId, active: true });
}

export async function availableCodeCount(knex: Knex, productId: number): Promise<number> {
  const row = await knex('product_codes')
    .where({ product_id: productId, status: 'available' })
    .count<{ count: number }[]>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** Units that can still be sold: available keys of a code product, else the stock (null: unlimited). */
export async function stockOf(knex: Knex, product: Product): Promise<number | null> {
  if (product.type === 'code') return availableCodeCount(knex, product.id);
  return product.stock;
}

export function priceView(product: Product, currency: string): PriceView {
  const actual = product.sale_price_minor ?? product.price_minor;
  return {
    original: toMajorNumber(product.price_minor, currency),
    actual: toMajorNumber(actual, currency),
    formatted: formatDisplay(actual, currency),
    currency,
  };
}

export function customFieldViews(fields: readonly CustomField[], currency: string): CustomFieldView[] {
  return fields.map((field, index) => ({
    index,
    type: field.type,
    label: field.label,
    label_ar: field.label_ar ?? null,
    required: field.required,
    options:
      field.type === 'select'
        ? (field.options ?? []).map((option, i) => ({
            index: i,
            label: option.label,
            label_ar: option.label_ar ?? null,
            price: formatMoney(option.price_minor, currency),
          }))
        : [],
    upload:
      field.type === 'image' || field.type === 'file'
        ? {
            accept: [...UPLOAD_RULES[field.type].extensions],
            max_size_bytes: UPLOAD_RULES[field.type].maxBytes,
          }
        : null,
  }));
}

/**
 * GET /api/embed/product/{productId}. An unknown or inactive product, or one of another store than the
 * embed key's, is not found. Payment methods are the store's active ones with their amount bounds, so an
 * interface can tell which stay open as the quantity changes; checkout filters them by the real total.
 */
/**
 * productView from this process's memory while nothing it shows changed (counters `cat:v:all`, the
 * store's and the product's, catalogue/cache.ts): no Postgres, and no Redis either while the process's
 * counter tracking is live. Stock is part of the answer, so the stock writers (reservation, sale, expiry)
 * bump the product's counter and merchant writes the store's. Unknown products are cached as null
 * (bounded map). Requests that miss at the same moment share one read (`caches.once`).
 *
 * The view is handed out as it is cached, deeply frozen rather than copied per request (a copy was the
 * largest cost of a hit, docs/performance.md): the route only serializes it, and a caller that tried to
 * change it would throw instead of changing the next request's answer.
 */
export async function cachedProductView(
  deps: HotReadDeps & { knex: Knex; config: MethodOffer },
  store: Store,
  rawId: unknown,
): Promise<Readonly<ProductView>> {
  const id = parseProductId(rawId);
  if (id === null) throw new NotFoundError('Product not found').withCode('product_not_found');
  const cache = deps.caches.of<ProductView | null>('product-view');
  const key = `${store.id}|${id}`;
  // Without Redis nothing is cached and every read goes to Postgres.
  const stamp = await readStamp(deps, [CATALOG_ALL, storeCounter(store.id), productCounter(id)]).catch(
    () => null,
  );
  let view = stamp === null ? undefined : cache.get(key, stamp);
  if (view === undefined) {
    const read = () =>
      productViewUntil(deps.knex, store, id, deps.config).then(
        ({ view: v, until }) => ({ view: deepFreeze(v), until }),
        (err: unknown) => {
          if (err instanceof NotFoundError) return { view: null, until: null };
          throw err;
        },
      );
    const got = stamp === null ? await read() : await deps.caches.once(`product-view|${key}|${stamp}`, read);
    view = got.view;
    // A timed sale's start or end changes the price without a write: the entry ends at that boundary.
    if (stamp !== null) cache.set(key, stamp, view, Date.now(), got.until?.getTime());
  }
  if (view === null) throw new NotFoundError('Product not found').withCode('product_not_found');
  return view;
}

/** Freezes a plain JSON-like value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export async function productView(
  knex: Knex,
  store: Store,
  rawId: unknown,
  offer: MethodOffer,
): Promise<ProductView> {
  return (await productViewUntil(knex, store, rawId, offer)).view;
}

/** productView, and when its price stops being true by time alone (the store's next timed-sale boundary). */
async function productViewUntil(
  knex: Knex,
  store: Store,
  rawId: unknown,
  offer: MethodOffer,
): Promise<{ view: ProductView; until: Date | null }> {
  const id = parseProductId(rawId);
  const product = id === null ? undefined : await findSellableProduct(knex, store.id, id);
  if (!product) throw new NotFoundError('Product not found').withCode('product_not_found');
  const { until } = await withTimedSales(knex, store.id, [product]);

  const [categories, plans, methods, quantity] = await Promise.all([
    Category.query(knex)
      .join('product_categories', 'product_categories.category_id', 'categories.id')
      .where('product_categories.product_id', product.id)
      .orderBy([{ column: 'categories.position' }, { column: 'categories.id' }])
      .select('categories.id', 'categories.name', 'categories.slug'),
    ProductPlan.query(knex)
      .where({ product_id: product.id, active: true })
      .orderBy([{ column: 'position' }, { column: 'id' }]),
    activeMethods(knex, store.id, offer),
    stockOf(knex, product),
  ]);

  const inStock = quantity === null || quantity > 0;
  const reason = notPurchasableReason(
    product.sale_price_minor ?? product.price_minor,
    plans.map((p) => p.price_minor),
    methods.length,
    inStock,
  );
  const view: ProductView = {
    id: product.id,
    name: product.name,
    name_ar: product.name_ar ?? null,
    slug: product.slug,
    description: product.description,
    description_ar: product.description_ar ?? null,
    type: product.type,
    currency: store.currency,
    price: priceView(product, store.currency),
    stock: { is_in_stock: inStock, quantity },
    max_per_order: product.max_per_order,
    image: { url: product.image_url },
    categories: categories.map((c) => ({ id: c.id, name: c.name, slug: c.slug })),
    fields: customFieldViews(customFieldsOf(product), store.currency),
    subscription_plans: plans.map((p) => ({
      id: p.id,
      name: p.name,
      price: formatMoney(p.price_minor, store.currency),
      price_formatted: formatDisplay(p.price_minor, store.currency),
      duration: p.duration,
    })),
    payment_methods: methods.map((m) => ({
      ...paymentMethodView(m.method),
      min_amount: m.min_amount_minor === null ? null : formatMoney(m.min_amount_minor, store.currency),
      max_amount: m.max_amount_minor === null ? null : formatMoney(m.max_amount_minor, store.currency),
    })),
    purchasable: reason === null,
    not_purchasable_reason: reason,
    digits: store.digits === 'arabic_indic' ? 'arabic_indic' : 'western',
  };
  return { view, until };
}

/**
 * The product a buyer names, on sale in this store, and the plan they chose among its active ones: an
 * invalid `product_id` or `subscription_plan` (422) otherwise. Used wherever a product and plan are
 * priced from a buyer's input (apply-coupon, the cart).
 */
export async function sellableWithPlan(
  knex: Knex,
  storeId: number,
  productId: number,
  planId: number | undefined,
): Promise<{ product: Product; plan: ProductPlan | undefined }> {
  const product = await findSellableProduct(knex, storeId, productId);
  if (!product) throw ValidationError.field('product_id', 'The selected product id is invalid.');
  if (planId === undefined) return { product, plan: undefined };
  const plan = await ProductPlan.query(knex).findOne({ id: planId, product_id: product.id, active: true });
  if (!plan) {
    throw ValidationError.field(
      'subscription_plan',
      'The selected subscription plan is not a plan of this product.',
    );
  }
  return { product, plan };
}

/**
 * The product answer in the reader's language (docs/store-pages.md): for Arabic readers `name`,
 * `description` and the custom field labels are the Arabic ones where the merchant gave them; for others
 * the English ones, with the Arabic description when there is no English one. The cached answer is shared
 * and frozen, so this makes a new object and never writes to it.
 */
export function localizedProductView(
  view: Readonly<ProductView>,
  locale: 'ar' | 'en',
): Readonly<ProductView> {
  if (locale !== 'ar') {
    return view.description === null && view.description_ar
      ? { ...view, description: view.description_ar }
      : view;
  }
  return {
    ...view,
    name: view.name_ar || view.name,
    description: view.description_ar || view.description,
    fields: view.fields.map((f) => ({
      ...f,
      label: f.label_ar || f.label,
      options: f.options.map((o) => ({ ...o, label: o.label_ar || o.label })),
    })),
  };
}
