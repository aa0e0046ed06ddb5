import type { Knex } from 'knex';
import { Cart, CartItem, Customer, Product, ProductPlan, Store } from '../../../db/models';
import { randomToken, sha256 } from '../../crypto';
import { DomainError, InvalidError, NotFoundError, ValidationError } from '../../errors';
import { formatMoney } from '../../money';
import { withTimedSales } from '../pricing/sales';
import { customFieldsOf, findSellableProduct, stockOf, sellableWithPlan } from '../catalogue';
import { productCards, ProductCard } from '../catalogue/storefront';
import {
  Buyer,
  CheckoutDeps,
  CheckoutResult,
  INSUFFICIENT_STOCK,
  MAX_QUANTITY,
  maxPerOrderError,
  openCheckout,
} from '../checkout';
import { resolveCouponForProducts } from '../coupons';
import { checkCustomFields } from '../custom-fields';
import { priceLines, unitPrice } from '../pricing';

/**
 * The Storefront cart (see CONTEXT.md). A cart belongs to a signed-in customer (one per store and
 * customer, found through the bearer token) or to an anonymous visitor, who keeps the opaque cart id the
 * first add answers and sends it back in `X-Cart-Id`; only its SHA-256 is stored. Carts never cross
 * stores: every lookup is by the resolved store.
 *
 * Nothing about prices is stored: every read prices the lines again from the products, plans, custom
 * field options, coupon and tax setting as they are now. A line whose product went off sale (or whose
 * plan or fields no longer fit) is shown with `available: false` and its reason, and is left out of the
 * totals; a coupon that no longer applies is shown with its error and gives no discount.
 */

export const CART_MESSAGES = {
  empty: 'Cart is empty',
  itemNotFound: 'Cart item not found',
  unavailable: 'Some items in the cart are not available',
  tooManyLines: 'The cart cannot hold more lines',
  offSale: 'This product is no longer available',
  planGone: 'This plan is no longer available',
  fieldsInvalid: 'The custom field values no longer fit this product',
} as const;

/** Lines per cart: far above a real basket, low enough to keep a read cheap. */
export const MAX_CART_LINES = 50;

export interface CartOwner {
  customer: Customer | null;
  /** The anonymous visitor's cart id (X-Cart-Id); ignored for a signed-in customer. */
  cartId: string | null;
}

export interface CartLineView {
  id: number;
  product: ProductCard | null;
  product_id: number;
  quantity: number;
  subscription_plan: { id: number; name: string; price: string } | null;
  fields: Record<string, unknown>;
  unit_price: string | null;
  addons: string | null;
  subtotal: string | null;
  available: boolean;
  problem: string | null;
}

export interface CartView {
  /** The anonymous visitor's cart id to send back as X-Cart-Id; null for a signed-in customer's cart. */
  cart_id: string | null;
  items: CartLineView[];
  /** Units over the available lines. */
  count: number;
  currency: string;
  coupon: { code: string; discount_amount: string; error: string | null } | null;
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  total: string;
}

async function findCart(knex: Knex, store: Store, owner: CartOwner): Promise<Cart | undefined> {
  if (owner.customer) {
    if (owner.cartId) await adoptAnonymousCart(knex, store, owner.customer, owner.cartId);
    return Cart.query(knex).findOne({ store_id: store.id, customer_id: owner.customer.id });
  }
  if (!owner.cartId) return undefined;
  return Cart.query(knex).findOne({ store_id: store.id, token_hash: sha256(owner.cartId) });
}

/**
 * A visitor who signs in keeps what they put in the cart: a signed-in request that still sends the
 * anonymous X-Cart-Id of this store moves that cart's lines (and its coupon, when the customer's cart has
 * none) into the customer's cart, and the anonymous cart is deleted. Lines move by one UPDATE, so two
 * simultaneous requests move them once.
 */
async function adoptAnonymousCart(
  knex: Knex,
  store: Store,
  customer: Customer,
  cartId: string,
): Promise<void> {
  const anonymous = await Cart.query(knex).findOne({ store_id: store.id, token_hash: sha256(cartId) });
  if (!anonymous) return;
  const { cart } = await ensureCart(knex, store, { customer, cartId: null });
  await knex.transaction(async (trx) => {
    await CartItem.query(trx).patch({ cart_id: cart.id }).where('cart_id', anonymous.id);
    if (!cart.coupon_code && anonymous.coupon_code) {
      await Cart.query(trx).patch({ coupon_code: anonymous.coupon_code }).where('id', cart.id);
    }
    await Cart.query(trx).delete().where('id', anonymous.id);
  });
}

/** The owner's cart, created when there is none; an unknown anonymous id gets a new cart and a new id. */
async function ensureCart(
  knex: Knex,
  store: Store,
  owner: CartOwner,
): Promise<{ cart: Cart; cartId: string | null }> {
  const found = await findCart(knex, store, owner);
  if (found) return { cart: found, cartId: owner.customer ? null : owner.cartId };
  if (owner.customer) {
    await knex('carts')
      .insert({ store_id: store.id, customer_id: owner.customer.id })
      .onConflict(knex.raw('(store_id, customer_id) where customer_id is not null'))
      .ignore();
    const cart = await Cart.query(knex).findOne({ store_id: store.id, customer_id: owner.customer.id });
    return { cart: cart!, cartId: null };
  }
  const cartId = `cart_${randomToken(24)}`;
  const cart = await Cart.query(knex).insertAndFetch({ store_id: store.id, token_hash: sha256(cartId) });
  return { cart, cartId };
}

interface PricedLine {
  item: CartItem;
  product: Product | undefined;
  plan: ProductPlan | undefined;
  problem: string | null;
  unitPriceMinor: number;
  addonsMinor: number;
}

/** Each line against its product, plan and fields as they are now. */
async function priceItems(knex: Knex, store: Store, items: readonly CartItem[]): Promise<PricedLine[]> {
  const out: PricedLine[] = [];
  for (const item of items) {
    const product = await findSellableProduct(knex, store.id, item.product_id);
    if (!product) {
      out.push({
        item,
        product,
        plan: undefined,
        problem: CART_MESSAGES.offSale,
        unitPriceMinor: 0,
        addonsMinor: 0,
      });
      continue;
    }
    await withTimedSales(knex, store.id, [product]);
    const plan = item.plan_id
      ? await ProductPlan.query(knex).findOne({ id: item.plan_id, product_id: product.id, active: true })
      : undefined;
    const planProblem =
      (item.plan_id && !plan) || (!item.plan_id && product.type === 'subscription')
        ? CART_MESSAGES.planGone
        : null;
    const fields = await checkCustomFields(customFieldsOf(product), item.fields ?? {}, []);
    const fieldsProblem = Object.keys(fields.errors).length > 0 ? CART_MESSAGES.fieldsInvalid : null;
    out.push({
      item,
      product,
      plan,
      problem: planProblem ?? fieldsProblem,
      unitPriceMinor: unitPrice(product, plan),
      addonsMinor: fields.addonsMinor,
    });
  }
  return out;
}

async function view(
  knex: Knex,
  store: Store,
  cart: Cart | undefined,
  cartId: string | null,
): Promise<CartView> {
  const items = cart ? await CartItem.query(knex).where('cart_id', cart.id).orderBy('id') : [];
  const priced = await priceItems(knex, store, items);
  const available = priced.filter((l) => l.problem === null);
  const cards = await productCards(
    knex,
    store,
    priced.map((l) => l.product).filter((p): p is Product => p !== undefined),
  );
  const cardOf = new Map(cards.map((c) => [c.id, c]));

  let coupon: Awaited<ReturnType<typeof resolveCouponForProducts>> | null = null;
  let couponError: string | null = null;
  const subtotalBefore = available.reduce(
    (sum, l) => sum + (l.unitPriceMinor + l.addonsMinor) * l.item.quantity,
    0,
  );
  if (cart?.coupon_code) {
    try {
      if (available.length === 0) throw new InvalidError(CART_MESSAGES.empty);
      coupon = await resolveCouponForProducts(
        knex,
        store.id,
        cart.coupon_code,
        available.map((l) => l.product!.id),
        subtotalBefore,
      );
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      couponError = err.message;
    }
  }
  const price = priceLines(
    available.map((l) => ({
      unitPriceMinor: l.unitPriceMinor,
      addonsMinor: l.addonsMinor,
      quantity: l.item.quantity,
      discountable:
        coupon !== null && (coupon.productIds.length === 0 || coupon.productIds.includes(l.product!.id)),
    })),
    coupon?.coupon ?? null,
    { mode: store.tax_mode, rateBp: store.tax_rate_bp },
  );

  return {
    cart_id: cartId,
    items: priced.map((l) => {
      const ok = l.problem === null;
      return {
        id: l.item.id,
        product: l.product ? (cardOf.get(l.product.id) ?? null) : null,
        product_id: l.item.product_id,
        quantity: l.item.quantity,
        subscription_plan: l.plan
          ? { id: l.plan.id, name: l.plan.name, price: formatMoney(l.plan.price_minor, store.currency) }
          : null,
        fields: l.item.fields ?? {},
        unit_price: ok ? formatMoney(l.unitPriceMinor, store.currency) : null,
        addons: ok ? formatMoney(l.addonsMinor, store.currency) : null,
        subtotal: ok
          ? formatMoney((l.unitPriceMinor + l.addonsMinor) * l.item.quantity, store.currency)
          : null,
        available: ok,
        problem: l.problem,
      };
    }),
    count: available.reduce((sum, l) => sum + l.item.quantity, 0),
    currency: store.currency,
    coupon: cart?.coupon_code
      ? {
          code: cart.coupon_code,
          discount_amount: formatMoney(price.discountMinor, store.currency),
          error: couponError,
        }
      : null,
    subtotal: formatMoney(price.subtotalMinor, store.currency),
    discount_amount: formatMoney(price.discountMinor, store.currency),
    tax_amount: formatMoney(price.taxMinor, store.currency),
    total: formatMoney(price.totalMinor, store.currency),
  };
}

/** GET /api/cart: an owner without a cart sees an empty one. */
export async function getCart(knex: Knex, store: Store, owner: CartOwner): Promise<CartView> {
  const cart = await findCart(knex, store, owner);
  return view(knex, store, cart, cart && !owner.customer ? owner.cartId : null);
}

export interface AddToCartInput {
  product_id: number;
  quantity: number;
  subscription_plan?: number;
  fields?: Record<string, unknown>;
}

/** Units of `product` the cart would hold, checked against what is on sale now (400 Insufficient stock). */
async function assertStock(knex: Knex, product: Product, units: number): Promise<void> {
  const inStock = await stockOf(knex, product);
  if (inStock !== null && units > inStock)
    throw new InvalidError(INSUFFICIENT_STOCK).withCode('out_of_stock');
}

/**
 * POST /api/cart/add. The product must be on sale in this store, the plan one of its active plans and the
 * fields valid (422 with `errors`, field names as the Embed checkout's); file fields cannot go in a cart.
 * The same product, plan and field values again add to that line's quantity.
 */
export async function addToCart(
  knex: Knex,
  store: Store,
  owner: CartOwner,
  input: AddToCartInput,
): Promise<CartView> {
  const { product, plan } = await sellableWithPlan(knex, store.id, input.product_id, input.subscription_plan);
  if (!plan && product.type === 'subscription') {
    throw ValidationError.field(
      'subscription_plan',
      'The subscription plan is required for a subscription product.',
    );
  }
  const rawFields = input.fields ?? {};
  const fields = await checkCustomFields(customFieldsOf(product), rawFields, []);
  if (Object.keys(fields.errors).length > 0) throw new ValidationError(fields.errors);

  const { cart, cartId } = await ensureCart(knex, store, owner);
  const lines = await CartItem.query(knex).where('cart_id', cart.id).orderBy('id');
  const same = lines.find(
    (l) =>
      l.product_id === product.id &&
      (l.plan_id ?? null) === (plan?.id ?? null) &&
      JSON.stringify(l.fields ?? {}) === JSON.stringify(rawFields),
  );
  const units = lines.filter((l) => l.product_id === product.id).reduce((s, l) => s + l.quantity, 0);
  await assertStock(knex, product, units + input.quantity);
  const overMax = maxPerOrderError(product, (same?.quantity ?? 0) + input.quantity);
  if (overMax) throw ValidationError.field('quantity', overMax);
  if (same) {
    const quantity = same.quantity + input.quantity;
    if (quantity > MAX_QUANTITY) throw ValidationError.field('quantity', 'The quantity is too large.');
    await CartItem.query(knex).patch({ quantity }).where('id', same.id);
  } else {
    if (lines.length >= MAX_CART_LINES) throw new InvalidError(CART_MESSAGES.tooManyLines);
    await CartItem.query(knex).insert({
      cart_id: cart.id,
      product_id: product.id,
      plan_id: plan?.id ?? null,
      quantity: input.quantity,
      fields: rawFields,
    });
  }
  await Cart.query(knex).patch({ updated_at: new Date() }).where('id', cart.id);
  return view(knex, store, cart, cartId);
}

async function ownLine(
  knex: Knex,
  store: Store,
  owner: CartOwner,
  itemId: number,
): Promise<{ cart: Cart; item: CartItem }> {
  const cart = await findCart(knex, store, owner);
  const item = cart ? await CartItem.query(knex).findOne({ id: itemId, cart_id: cart.id }) : undefined;
  if (!cart || !item) throw new NotFoundError(CART_MESSAGES.itemNotFound);
  return { cart, item };
}

const anonymousId = (owner: CartOwner): string | null => (owner.customer ? null : owner.cartId);

/** PATCH /api/cart/items/{id}: the new quantity of a line, checked against stock. */
export async function setQuantity(
  knex: Knex,
  store: Store,
  owner: CartOwner,
  itemId: number,
  quantity: number,
): Promise<CartView> {
  const { cart, item } = await ownLine(knex, store, owner, itemId);
  const product = await findSellableProduct(knex, store.id, item.product_id);
  if (product) {
    const overMax = maxPerOrderError(product, quantity);
    if (overMax) throw ValidationError.field('quantity', overMax);
    const others = await knex('cart_items')
      .where({ cart_id: cart.id, product_id: product.id })
      .whereNot('id', item.id)
      .sum<{ sum: number | null }>('quantity as sum')
      .first();
    await assertStock(knex, product, Number(others?.sum ?? 0) + quantity);
  }
  await CartItem.query(knex).patch({ quantity }).where('id', item.id);
  return view(knex, store, cart, anonymousId(owner));
}

/** DELETE /api/cart/items/{id}. */
export async function removeLine(
  knex: Knex,
  store: Store,
  owner: CartOwner,
  itemId: number,
): Promise<CartView> {
  const { cart, item } = await ownLine(knex, store, owner, itemId);
  await CartItem.query(knex).delete().where('id', item.id);
  return view(knex, store, cart, anonymousId(owner));
}

/** POST /api/cart/coupon: checked now against the cart (400 with the Coupon errors' messages), then kept. */
export async function applyCartCoupon(
  knex: Knex,
  store: Store,
  owner: CartOwner,
  code: string,
): Promise<CartView> {
  const cart = await findCart(knex, store, owner);
  const lines = cart
    ? await priceItems(knex, store, await CartItem.query(knex).where('cart_id', cart.id))
    : [];
  const available = lines.filter((l) => l.problem === null);
  if (!cart || available.length === 0) throw new InvalidError(CART_MESSAGES.empty);
  const subtotal = available.reduce((s, l) => s + (l.unitPriceMinor + l.addonsMinor) * l.item.quantity, 0);
  const { coupon } = await resolveCouponForProducts(
    knex,
    store.id,
    code,
    available.map((l) => l.product!.id),
    subtotal,
  );
  await Cart.query(knex).patch({ coupon_code: coupon.code }).where('id', cart.id);
  return view(knex, store, await Cart.query(knex).findById(cart.id), anonymousId(owner));
}

/** DELETE /api/cart/coupon. */
export async function removeCartCoupon(knex: Knex, store: Store, owner: CartOwner): Promise<CartView> {
  const cart = await findCart(knex, store, owner);
  if (cart) await Cart.query(knex).patch({ coupon_code: null }).where('id', cart.id);
  return view(
    knex,
    store,
    cart ? await Cart.query(knex).findById(cart.id) : undefined,
    cart ? anonymousId(owner) : null,
  );
}

/** DELETE /api/cart: every line and the coupon. */
export async function clearCart(knex: Knex, store: Store, owner: CartOwner): Promise<CartView> {
  const cart = await findCart(knex, store, owner);
  if (cart) {
    await CartItem.query(knex).delete().where('cart_id', cart.id);
    await Cart.query(knex).patch({ coupon_code: null }).where('id', cart.id);
  }
  return view(
    knex,
    store,
    cart ? await Cart.query(knex).findById(cart.id) : undefined,
    cart ? anonymousId(owner) : null,
  );
}

/**
 * POST /api/checkout: the cart's lines become one checkout (the checkout engine's several-line case, with
 * the cart's coupon), priced and checked again there; stock and keys are reserved for every line or none.
 * A line that is not available answers 400 before anything is written. Once the checkout exists the cart
 * is emptied: what it held now lives in the checkout until it is paid or expires.
 */
export async function checkoutCart(
  deps: CheckoutDeps,
  store: Store,
  owner: CartOwner,
  buyer: Buyer,
  opts: { customer_note?: string; creator_code?: string },
): Promise<CheckoutResult> {
  const { knex } = deps;
  const cart = await findCart(knex, store, owner);
  const items = cart ? await CartItem.query(knex).where('cart_id', cart.id).orderBy('id') : [];
  if (!cart || items.length === 0) throw new InvalidError(CART_MESSAGES.empty);
  const priced = await priceItems(knex, store, items);
  if (priced.some((l) => l.problem !== null)) throw new InvalidError(CART_MESSAGES.unavailable);

  const result = await openCheckout(deps, store, buyer, {
    lines: items.map((i) => ({
      product_id: i.product_id,
      quantity: i.quantity,
      subscription_plan: i.plan_id ?? undefined,
      fields: i.fields ?? {},
    })),
    coupon_code: cart.coupon_code ?? undefined,
    customer_note: opts.customer_note,
    creator_code: opts.creator_code,
    source: 'storefront',
    errorKey: (line, field) => `items.${line}.${field}`,
  });
  await knex.transaction(async (trx) => {
    await CartItem.query(trx).delete().where('cart_id', cart.id);
    await Cart.query(trx).patch({ coupon_code: null }).where('id', cart.id);
  });
  return result;
}
