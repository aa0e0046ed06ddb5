import type { Knex } from 'knex';
import { sha256 } from '../../crypto';
import { NotFoundError } from '../../errors';

export const CHECKOUT_STATUS_NOT_FOUND = 'Checkout not found';

export interface PaymentStatusView {
  is_paid: boolean;
  order_id: number | null;
}

interface StatusRow {
  status: string;
  expires_at: Date;
  order_id: number | null;
  payment_id: number | null;
  payment_status: string | null;
}

/**
 * GET /api/embed/payment/status/{checkoutUrl}, polled every 2 to 3 seconds: one query on the unique
 * token_hash index (plus the unique orders.checkout_id and the payments primary key). `is_paid` is true
 * once an order exists and its payment is confirmed (a free order has none to confirm); an order waiting
 * for a bank transfer or PayPal confirmation is not paid yet, so `order_id` stays null until then.
 * A checkout with an order keeps answering after its lifetime; an unpaid one past it is not found.
 */
export async function paymentStatus(
  knex: Knex,
  checkoutUrl: string,
  now: Date = new Date(),
): Promise<PaymentStatusView> {
  if (checkoutUrl.length === 0 || checkoutUrl.length > 200)
    throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND);
  const row = await knex('checkouts as c')
    .leftJoin('orders as o', 'o.checkout_id', 'c.id')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .where('c.token_hash', sha256(checkoutUrl))
    .first<StatusRow | undefined>(
      'c.status',
      'c.expires_at',
      'o.id as order_id',
      'o.payment_id',
      'p.status as payment_status',
    );
  if (!row) throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND);
  if (row.order_id === null) {
    const open = row.status === 'created' || row.status === 'payment_initiated';
    if (!open || new Date(row.expires_at) <= now) throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND);
    return { is_paid: false, order_id: null };
  }
  const paid = row.payment_id === null || row.payment_status === 'paid' || row.payment_status === 'refunded';
  return { is_paid: paid, order_id: paid ? row.order_id : null };
}
