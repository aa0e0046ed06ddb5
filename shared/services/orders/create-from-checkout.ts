import type { UnitOfWork } from '../../unit-of-work';
import { noteStockChangedOn } from '../catalogue/cache';
import { notePaymentStatusChanged } from '../payment-records/status';
import type { Knex } from 'knex';
import {
  Checkout,
  CouponUse,
  ORDER_STATUS,
  Order,
  OrderItem,
  OrderStatus,
  PaymentMethodId,
  Product,
  ProductPlan,
} from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { CheckoutLine, checkoutLines } from '../checkout-records/lines';
import { issueInvoiceForOrder } from '../invoices/issue';
import { recordPaidOrderGrowth } from '../growth/paid';

export interface CreateOrderOptions {
  paymentId?: number | null;
  paymentMethod?: PaymentMethodId | null;
  status: OrderStatus;
  /** Where the warnings of a paid checkout's shortfalls go (see below); silent when absent. A pino logger fits. */
  logger?: WarningSink;
  /**
   * What a checkout whose hold lapsed does when its keys or stock are gone by the time its payment is
   * confirmed: `warn` (the default) places the order anyway and logs the shortfall; `cancel` places the
   * order Cancelled with nothing taken (`soldOut: true` in the answer), for the caller to refund the
   * payment (payment reconciliation does: shared/services/payments/reconcile.ts).
   */
  onSoldOut?: 'warn' | 'cancel';
}

export interface CreatedOrder {
  order: Order;
  created: boolean;
  /** The checkout's keys or stock were gone: the order was placed Cancelled with nothing taken. */
  soldOut?: boolean;
}

export interface WarningSink {
  warn(details: Record<string, unknown>, message: string): void;
}

export const COUPON_EXHAUSTED = 'Coupon has reached maximum uses';

/**
 * Turns a checkout into its order, inside the caller's transaction. Used by free orders (checkout) and by
 * payment reconciliation, so it is idempotent: the checkout row is locked first, and when an order
 * already exists for it that order is returned with `created: false`. The unique `orders.checkout_id`
 * is the last line of defence should two callers ever get past the lock.
 *
 * Writes: the order (customer snapshot, totals, coupon, note, source), one order item per checkout line
 * (name, type, plan, quantity, unit price including add-ons, the custom field values), the coupon use, the code keys,
 * the checkout marked paid, and for a paid order of a store with a VAT number its tax invoice.
 *
 * Coupon uses: a live checkout holds a reserved use (checkout service), which becomes a made use here.
 * A checkout whose reservation lapsed takes a use atomically: `uses_count + 1` only while
 * `uses_count + reserved_uses` is below `max_uses`.
 * - A free order (total 0) that finds the coupon used up throws "Coupon has reached maximum uses"; the
 *   caller's transaction rolls back and nothing is written.
 * - A paid checkout has already been charged the discounted price, so its order is still created and
 *   its `coupon_uses` row recorded, but the counter stays at `max_uses` (the database forbids more) and a
 *   warning is logged for the merchant to review.
 *
 * Reservations: the keys this checkout reserved are sold to the order item. Should the reservation have
 * lapsed before a late payment (the checkout expired and released its keys or stock), keys and stock are
 * taken again if any are left; what cannot be covered is logged as a warning, and the order still stands
 * because the customer has paid.
 */
export async function createOrderFromCheckout(
  uow: UnitOfWork,
  checkoutId: number,
  opts: CreateOrderOptions,
): Promise<CreatedOrder> {
  const { trx } = uow;
  const checkout = await Checkout.query(trx).findById(checkoutId).forUpdate();
  if (!checkout) throw new NotFoundError('Checkout not found');

  const existing = await Order.query(trx).findOne({ checkout_id: checkout.id });
  if (existing) return { order: existing, created: false };

  const lines = await checkoutLines(trx, checkout);
  const now = new Date();
  const warn = (msg: string, extra: Record<string, unknown>) =>
    opts.logger?.warn({ checkoutId: checkout.id, ...extra }, msg);
  if (opts.onSoldOut === 'cancel' && !(await goodsStillThere(trx, checkout, lines))) {
    return { order: await placeSoldOut(uow, checkout, lines, opts), created: true, soldOut: true };
  }

  const order = await Order.query(trx).insertAndFetch(
    orderRowOf(checkout, opts, opts.status, opts.status === ORDER_STATUS.COMPLETED ? now : null),
  );

  for (const line of lines) {
    await createOrderItem(trx, checkout, order, line, now, warn);
  }
  // A paid order (a confirmed payment, a free order) gets its tax invoice in this same transaction.
  if (opts.status === ORDER_STATUS.IN_PROGRESS || opts.status === ORDER_STATUS.COMPLETED) {
    await issueInvoiceForOrder(trx, order.id, now);
  }

  if (checkout.coupon_id !== null) {
    // A live checkout holds a use (reserved at checkout): the order turns it into a made use, always.
    // A lapsed one (expired, its use given back) takes a use again only while any are left.
    const counted = checkout.coupon_reserved
      ? await trx('coupons')
          .where('id', checkout.coupon_id)
          .update({
            uses_count: trx.raw('least(uses_count + 1, coalesce(max_uses, uses_count + 1))'),
            reserved_uses: trx.raw('greatest(reserved_uses - 1, 0)'),
          })
      : await trx('coupons')
          .where('id', checkout.coupon_id)
          .andWhere((q) => q.whereNull('max_uses').orWhereRaw('uses_count + reserved_uses < max_uses'))
          .increment('uses_count', 1);
    if (counted === 0) {
      if (checkout.total_minor === 0) throw new InvalidError(COUPON_EXHAUSTED);
      warn('coupon used beyond max_uses by a paid checkout', {
        couponId: checkout.coupon_id,
        orderId: order.id,
      });
    }
    await CouponUse.query(trx).insert({
      coupon_id: checkout.coupon_id,
      order_id: order.id,
      customer_id: checkout.customer_id,
      discount_minor: checkout.discount_minor,
    });
  }

  await Checkout.query(trx)
    .patch({ status: 'paid', reserved: false, coupon_reserved: false })
    .where('id', checkout.id);
  // Once this commits: the checkout's payment status has an order, and the lines' stock may have moved
  // (keys sold from available stock for a checkout that expired before its payment).
  notePaymentStatusChanged(uow, [checkout.id]);
  noteStockChangedOn(
    uow,
    lines.map((l) => l.product_id),
  );
  // Creator commission and reminder recovery (docs/growth.md), for an order that is paid.
  if (opts.status !== ORDER_STATUS.AWAITING_PAYMENT) await recordPaidOrderGrowth(uow, order.id, now);
  return { order, created: true };
}

/**
 * Whether every line of a checkout can still be covered: a live hold always can; a lapsed one needs keys
 * available (locked here, FOR UPDATE SKIP LOCKED, so that createOrderItem sells exactly these in this
 * transaction: rows a transaction has locked are not skipped by its own later reads) or stock left (the
 * product row locked until the commit).
 */
async function goodsStillThere(
  trx: Knex.Transaction,
  checkout: Checkout,
  lines: readonly CheckoutLine[],
): Promise<boolean> {
  for (const line of lines) {
    const product = await trx('products')
      .where('id', line.product_id)
      .first<{ type: string; stock: number | null } | undefined>('type', 'stock');
    if (!product) return false;
    if (product.type === 'code') {
      const reserved = await trx('product_codes')
        .where({ checkout_id: checkout.id, product_id: line.product_id, status: 'reserved' })
        .count<{ n: string }[]>('id as n');
      const missing = line.quantity - Number(reserved[0]?.n ?? 0);
      if (missing <= 0) continue;
      const free = await trx('product_codes')
        .where({ product_id: line.product_id, status: 'available' })
        .orderBy('id')
        .limit(missing)
        .forUpdate()
        .skipLocked()
        .select('id');
      if (free.length < missing) return false;
    } else if (product.stock !== null && !(checkout.reserved && line.reserved)) {
      const locked = await trx('products')
        .where('id', line.product_id)
        .forUpdate()
        .first<{ stock: number | null }>('stock');
      if (locked?.stock !== null && Number(locked?.stock) < line.quantity) return false;
    }
  }
  return true;
}

/**
 * The order of a paid checkout whose keys or stock were sold to others after its hold lapsed: placed
 * Cancelled, one item per line for the record, nothing taken (what the checkout still held goes back on
 * sale), no coupon use counted. The caller refunds its payment.
 */
async function placeSoldOut(
  uow: UnitOfWork,
  checkout: Checkout,
  lines: readonly CheckoutLine[],
  opts: CreateOrderOptions,
): Promise<Order> {
  const { trx } = uow;
  const order = await Order.query(trx).insertAndFetch(
    orderRowOf(checkout, opts, ORDER_STATUS.CANCELLED, null),
  );
  for (const line of lines) {
    const product = await Product.query(trx).findById(line.product_id);
    const plan = line.plan_id ? await ProductPlan.query(trx).findById(line.plan_id) : undefined;
    await OrderItem.query(trx).insert({
      order_id: order.id,
      product_id: line.product_id,
      plan_id: line.plan_id,
      name: plan ? `${product?.name ?? ''} (${plan.name})` : (product?.name ?? ''),
      type: product?.type ?? 'product',
      quantity: line.quantity,
      unit_price_minor: line.unit_price_minor + line.addons_minor,
      total_minor: line.subtotal_minor,
      fields: line.fields,
    });
  }
  await trx('product_codes')
    .where({ checkout_id: checkout.id, status: 'reserved' })
    .update({ status: 'available', checkout_id: null });
  for (const line of lines) {
    if (!(checkout.reserved && line.reserved)) continue;
    await trx('products')
      .where('id', line.product_id)
      .whereNotNull('stock')
      .whereNot('type', 'code')
      .increment('stock', line.quantity);
  }
  if (checkout.coupon_id !== null && checkout.coupon_reserved) {
    await trx('coupons')
      .where('id', checkout.coupon_id)
      .update({ reserved_uses: trx.raw('greatest(reserved_uses - 1, 0)') });
  }
  await Checkout.query(trx)
    .patch({ status: 'paid', reserved: false, coupon_reserved: false })
    .where('id', checkout.id);
  opts.logger?.warn(
    { checkoutId: checkout.id, orderId: order.id },
    'a paid checkout found its keys or stock sold after its hold lapsed: order cancelled, payment to refund',
  );
  notePaymentStatusChanged(uow, [checkout.id]);
  noteStockChangedOn(
    uow,
    lines.map((l) => l.product_id),
  );
  return order;
}

/**
 * One order item per checkout line: name, type, plan, quantity, unit price including add-ons, the custom
 * field values; the keys the line reserved are sold to it, and a lapsed reservation takes keys or stock
 * again where it can.
 */
async function createOrderItem(
  trx: Knex.Transaction,
  checkout: Checkout,
  order: Order,
  line: CheckoutLine,
  now: Date,
  warn: (msg: string, extra: Record<string, unknown>) => void,
): Promise<OrderItem> {
  const product = await Product.query(trx).findById(line.product_id);
  if (!product) throw new NotFoundError('Product not found');
  const plan = line.plan_id ? await ProductPlan.query(trx).findById(line.plan_id) : undefined;
  const item = await OrderItem.query(trx).insertAndFetch({
    order_id: order.id,
    product_id: product.id,
    plan_id: line.plan_id,
    name: plan ? `${product.name} (${plan.name})` : product.name,
    type: product.type,
    quantity: line.quantity,
    unit_price_minor: line.unit_price_minor + line.addons_minor,
    total_minor: line.subtotal_minor,
    fields: line.fields,
  });

  if (product.type === 'code') {
    const sold = await trx('product_codes')
      .whereIn(
        'id',
        trx('product_codes')
          .select('id')
          .where({ checkout_id: checkout.id, product_id: product.id, status: 'reserved' })
          .orderBy('id')
          .limit(line.quantity),
      )
      .update({ status: 'sold', order_item_id: item.id, sold_at: now });
    const missing = line.quantity - sold;
    if (missing > 0) {
      const more = await trx('product_codes')
        .whereIn(
          'id',
          trx('product_codes')
            .select('id')
            .where({ product_id: product.id, status: 'available' })
            .orderBy('id')
            .limit(missing)
            .forUpdate()
            .skipLocked(),
        )
        .update({ status: 'sold', order_item_id: item.id, sold_at: now, checkout_id: checkout.id });
      if (more < missing)
        warn('not enough code keys for a paid order', { orderId: order.id, missing: missing - more });
    }
  } else if (product.stock !== null && !(checkout.reserved && line.reserved)) {
    // Only a lapsed reservation gets here (a live one already took the units at checkout).
    const taken = await trx('products')
      .where('id', product.id)
      .andWhere('stock', '>=', line.quantity)
      .decrement('stock', line.quantity);
    if (taken === 0) warn('stock oversold by a paid order', { orderId: order.id, productId: product.id });
  }
  return item;
}

/** The order row a checkout becomes: its buyer, amounts and source, with the status it starts in. */
function orderRowOf(
  checkout: Checkout,
  opts: CreateOrderOptions,
  status: OrderStatus,
  completedAt: Date | null,
): Partial<Order> {
  return {
    store_id: checkout.store_id,
    checkout_id: checkout.id,
    customer_id: checkout.customer_id,
    status,
    customer_first_name: checkout.customer_first_name,
    customer_last_name: checkout.customer_last_name,
    customer_email: checkout.customer_email,
    customer_country_code: checkout.customer_country_code,
    customer_phone: checkout.customer_phone,
    subtotal_minor: checkout.subtotal_minor,
    discount_minor: checkout.discount_minor,
    tax_minor: checkout.tax_minor,
    tax_rate_bp: checkout.tax_rate_bp,
    total_minor: checkout.total_minor,
    currency: checkout.currency,
    coupon_id: checkout.coupon_id,
    payment_method: opts.paymentMethod ?? null,
    payment_id: opts.paymentId ?? null,
    customer_note: checkout.customer_note,
    source: checkout.source,
    completed_at: completedAt,
  };
}
