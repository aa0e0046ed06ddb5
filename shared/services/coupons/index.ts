import { creatorCreditOf } from '../growth/creator-ledger';
import { withTimedSales } from '../pricing/sales';
import type { Knex } from 'knex';
import { Coupon, PaymentMethodId, Store } from '../../../db/models';
import { InvalidError, ValidationError } from '../../errors';
import { formatMoney, toMajorNumber } from '../../money';
import { sellableWithPlan } from '../catalogue';
import { couponDiscount, subtotalOf, unitPrice } from '../pricing';

/**
 * Coupons of a store (spec: Coupon, Coupon errors). A code matches case-insensitively within the store.
 * Checks run in this order, the first failure answering 400 with its message:
 *
 * 1. unknown code: "Invalid coupon";
 * 2. inactive, not yet started (`starts_at` in the future) or expired (`expires_at` passed):
 *    "Coupon is not active";
 * 3. `uses_count` has reached `max_uses`: "Coupon has reached maximum uses";
 * 4. the coupon names products and this is not one of them: "This coupon is not valid for this product";
 * 5. the order is below `min_order`: "Minimum order value is 20.00" (decimal, no currency). The order
 *    value compared is the subtotal before discount and tax.
 *
 * Passing these checks reserves nothing by itself. The checkout reserves a use in its transaction
 * (`reserveCouponUse`: one conditional UPDATE, so concurrent checkouts can never hold more than `max_uses`
 * between them); the order consumes it (orders service); an expired checkout gives it back (maintenance).
 */

export const COUPON_ERRORS = {
  invalid: 'Invalid coupon',
  notActive: 'Coupon is not active',
  exhausted: 'Coupon has reached maximum uses',
  notForProduct: 'This coupon is not valid for this product',
  minimumOrder: (minor: number, currency?: string) =>
    `Minimum order value is ${formatMoney(minor, currency)}`,
} as const;

/** The coupon result object of POST /api/embed/apply-coupon. */
export interface CouponView {
  /** Null for a creator's code that is no coupon of the store (`creator: true`). */
  coupon_id: number | null;
  code: string;
  type: Coupon['type'];
  /** 10 for 10%; 5.5 for a fixed 5.50. */
  amount: number;
  discount_amount: number;
  payment_restrictions: PaymentMethodId[];
  /** True when the code is a creator's (docs/growth.md, "Creator codes"): the discount is the creator's. */
  creator: boolean;
}

export async function findCouponByCode(
  knex: Knex,
  storeId: number,
  code: string,
): Promise<Coupon | undefined> {
  return Coupon.query(knex)
    .where('store_id', storeId)
    .whereRaw('lower(code) = lower(?)', [code.trim()])
    .first();
}

/**
 * Throws the Coupon errors table's answer when `coupon` cannot be used for this product and subtotal.
 * `productId` may list the products of a checkout with several lines: a product-restricted coupon then
 * needs one of them. Answers the products the coupon is limited to (empty: every product).
 */
export async function assertCouponUsable(
  knex: Knex,
  coupon: Coupon,
  productId: number | readonly number[],
  subtotalMinor: number,
  now: Date = new Date(),
): Promise<number[]> {
  const productIds: readonly number[] = typeof productId === 'number' ? [productId] : productId;
  const started = coupon.starts_at === null || new Date(coupon.starts_at) <= now;
  const expired = coupon.expires_at !== null && new Date(coupon.expires_at) <= now;
  if (!coupon.active || !started || expired)
    throw new InvalidError(COUPON_ERRORS.notActive).withCode('coupon_not_active');
  if (coupon.max_uses !== null && coupon.uses_count + (coupon.reserved_uses ?? 0) >= coupon.max_uses)
    throw new InvalidError(COUPON_ERRORS.exhausted).withCode('coupon_exhausted');

  const limitedTo = await knex('coupon_products').where('coupon_id', coupon.id).pluck<number[]>('product_id');
  if (limitedTo.length > 0 && !productIds.some((id) => limitedTo.includes(id)))
    throw new InvalidError(COUPON_ERRORS.notForProduct).withCode('coupon_not_for_product');

  if (coupon.min_order_minor !== null && subtotalMinor < coupon.min_order_minor) {
    // Read only on this refusal: the amount is written with the store currency's decimals.
    const store = await knex('stores')
      .where('id', coupon.store_id)
      .first<{ currency: string } | undefined>('currency');
    throw new InvalidError(COUPON_ERRORS.minimumOrder(coupon.min_order_minor, store?.currency)).withCode(
      'coupon_minimum_order',
      { amount: formatMoney(coupon.min_order_minor, store?.currency) },
    );
  }
  return limitedTo;
}

/**
 * Holds one use of the coupon for a checkout, inside the checkout's transaction: granted only while the
 * uses made plus the uses held stay below `max_uses`, decided by Postgres on the coupon row. Throws
 * "Coupon has reached maximum uses" otherwise (the transaction rolls back and nothing is held).
 */
export async function reserveCouponUse(trx: Knex.Transaction, couponId: number): Promise<void> {
  const held = await trx('coupons')
    .where('id', couponId)
    .andWhere((q) => q.whereNull('max_uses').orWhereRaw('uses_count + reserved_uses < max_uses'))
    .update({ reserved_uses: trx.raw('reserved_uses + 1') });
  if (held === 0) throw new InvalidError(COUPON_ERRORS.exhausted).withCode('coupon_exhausted');
}

/** The store's coupon for `code`, checked for this product and subtotal. */
export async function resolveCoupon(
  knex: Knex,
  storeId: number,
  code: string,
  productId: number,
  subtotalMinor: number,
  now: Date = new Date(),
): Promise<Coupon> {
  const coupon = await findCouponByCode(knex, storeId, code);
  if (!coupon) throw new InvalidError(COUPON_ERRORS.invalid).withCode('coupon_invalid');
  await assertCouponUsable(knex, coupon, productId, subtotalMinor, now);
  return coupon;
}

/**
 * The store's coupon for `code`, checked against a checkout of several products (one of them must be
 * eligible; the minimum order is compared with the whole subtotal), with the products it discounts.
 */
export async function resolveCouponForProducts(
  knex: Knex,
  storeId: number,
  code: string,
  productIds: readonly number[],
  subtotalMinor: number,
  now: Date = new Date(),
): Promise<{ coupon: Coupon; productIds: number[] }> {
  const coupon = await findCouponByCode(knex, storeId, code);
  if (!coupon) throw new InvalidError(COUPON_ERRORS.invalid).withCode('coupon_invalid');
  return { coupon, productIds: await assertCouponUsable(knex, coupon, productIds, subtotalMinor, now) };
}

/** A percentage in basis points as the spec's float (1000 -> 10); a fixed amount in major units. */
export function couponAmount(coupon: Pick<Coupon, 'type' | 'amount'>, currency: string): number {
  return coupon.type === 'percentage' ? coupon.amount / 100 : toMajorNumber(coupon.amount, currency);
}

export interface ApplyCouponInput {
  code: string;
  product_id: number;
  quantity: number;
  /** Optional: price the discount on this plan of the product (subscriptions, license plans). */
  subscription_plan?: number;
}

/**
 * POST /api/embed/apply-coupon: the discount this coupon gives on the product's price (the sale price when
 * set; the plan's price when `subscription_plan` names one) times the quantity, before options and tax;
 * the checkout recomputes it on the real subtotal. A product that is not on sale in this store is an
 * invalid `product_id`, and a plan that is not one of its active plans an invalid `subscription_plan` (422).
 */
export async function applyCoupon(knex: Knex, store: Store, input: ApplyCouponInput): Promise<CouponView> {
  const { product, plan } = await sellableWithPlan(knex, store.id, input.product_id, input.subscription_plan);
  await withTimedSales(knex, store.id, [product]);
  const subtotalMinor = subtotalOf(unitPrice(product, plan), 0, input.quantity);
  if (subtotalMinor === null) throw ValidationError.field('quantity', 'The quantity is too large.');
  // As the checkout reads a coupon_code: a creator's code that is no coupon of the store is the creator's
  // (accepted, with the creator's buyer discount or none); a coupon with that code stays the coupon.
  const credit = await creatorCreditOf(knex, store.id, undefined, input.code.trim());
  if (credit.creator && credit.couponIsCreator) {
    const bp = credit.discountBp ?? 0;
    return {
      coupon_id: null,
      code: credit.creator.code,
      type: 'percentage',
      amount: bp / 100,
      discount_amount: toMajorNumber(
        bp > 0 ? couponDiscount(subtotalMinor, { type: 'percentage', amount: bp }) : 0,
        store.currency,
      ),
      payment_restrictions: [],
      creator: true,
    };
  }
  const coupon = await resolveCoupon(knex, store.id, input.code, product.id, subtotalMinor);
  return {
    creator: false,
    coupon_id: coupon.id,
    code: coupon.code,
    type: coupon.type,
    amount: couponAmount(coupon, store.currency),
    discount_amount: toMajorNumber(couponDiscount(subtotalMinor, coupon), store.currency),
    payment_restrictions: [...coupon.payment_restrictions],
  };
}
