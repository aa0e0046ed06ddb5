import type { Knex } from 'knex';
import { readStamp, StampedCache, type HotReadDeps } from '../../cache/versioned';
import type { Bumps } from '../../unit-of-work';
import { sha256 } from '../../crypto';
import { NotFoundError } from '../../errors';

export const CHECKOUT_STATUS_NOT_FOUND = 'Checkout not found';

export interface PaymentStatusView {
  is_paid: boolean;
  order_id: number | null;
}

interface StatusRow {
  checkout_id: number;
  status: string;
  expires_at: Date;
  order_id: number | null;
  payment_id: number | null;
  payment_status: string | null;
}

/**
 * GET /api/embed/payment/status/{checkoutUrl}, polled every 2 to 3 seconds: one query on the unique
 * token_hash index (plus the unique orders.checkout_id and the payments primary key). `is_paid` is true
 * once an order exists and its payment is confirmed (a free order has none to confirm), and `order_id` is
 * null until then (the spec's "Payment status" answer: null until paid). An order waiting for a bank
 * transfer or PayPal confirmation exists but is not paid yet: `is_paid` false and `order_id` null; the
 * buyer already has its id and reference from the initiate answer.
 * A checkout with an order keeps answering after its lifetime; an unpaid one past it is not found.
 */
export async function paymentStatus(
  knex: Knex,
  checkoutUrl: string,
  now: Date = new Date(),
): Promise<PaymentStatusView> {
  if (checkoutUrl.length === 0 || checkoutUrl.length > 200)
    throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
  const row = await statusRow(knex, sha256(checkoutUrl));
  if (!row) throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
  return viewOf(row, now);
}

/** The answer from a row; time-dependent (an open checkout past `expires_at` is not found), so never cached. */
function viewOf(row: StatusRow, now: Date): PaymentStatusView {
  if (row.order_id === null) {
    const open = row.status === 'created' || row.status === 'payment_initiated';
    if (!open || new Date(row.expires_at) <= now)
      throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
    return { is_paid: false, order_id: null };
  }
  const paid = row.payment_id === null || row.payment_status === 'paid' || row.payment_status === 'refunded';
  // An order waiting for a bank transfer or PayPal confirmation is not named here until it is paid.
  return { is_paid: paid, order_id: paid ? row.order_id : null };
}

async function statusRow(knex: Knex, tokenHash: string): Promise<StatusRow | undefined> {
  return knex('checkouts as c')
    .leftJoin('orders as o', 'o.checkout_id', 'c.id')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .where('c.token_hash', tokenHash)
    .first<StatusRow | undefined>(
      'c.id as checkout_id',
      'c.status',
      'c.expires_at',
      'o.id as order_id',
      'o.payment_id',
      'p.status as payment_status',
    );
}

/**
 * Counters of the payment-status cache (shared/cache/versioned.ts): one per checkout, bumped after commit
 * by every writer that can change the answer (an order created for the checkout, its payment's status,
 * the checkout's status), and one for everything, for writers that do not know the checkout.
 */
const ALL = 'pay:v:all';
const checkoutCounter = (checkoutId: number): string => `pay:v:c:${checkoutId}`;

/** Bumps the status counters of these checkouts (none given: of every checkout) after the unit's commit. */
export function notePaymentStatusChanged(uow: Bumps, checkoutIds?: readonly number[]): void {
  uow.bump(checkoutIds === undefined ? [ALL] : checkoutIds.map(checkoutCounter));
}

/**
 * paymentStatus with a per-process cache, for the polling routes. Keyed by the token hash (never the
 * checkout URL). The cached row keeps `expires_at` and the answer is computed from it on every hit, so
 * expiry by time needs no bump. A token hash's checkout id never changes, so it is remembered apart; the
 * counters are per checkout id, which every writer knows. A hit costs one MGET and no Postgres; the first
 * poll of a checkout in a process reads Postgres to learn the id and caches nothing; unknown checkouts
 * (404) are never cached, and both maps are bounded.
 */
export async function cachedPaymentStatus(
  deps: HotReadDeps & { knex: Knex },
  checkoutUrl: string,
  now: Date = new Date(),
): Promise<PaymentStatusView> {
  if (checkoutUrl.length === 0 || checkoutUrl.length > 200)
    throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
  const tokenHash = sha256(checkoutUrl);
  const ids = deps.caches.of<number>('payment-status:ids', Number.POSITIVE_INFINITY);
  const rows: StampedCache<StatusRow> = deps.caches.of<StatusRow>('payment-status:rows');
  const checkoutId = ids.get(tokenHash, '');
  if (checkoutId === undefined) {
    const row = await statusRow(deps.knex, tokenHash);
    if (!row) throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
    ids.set(tokenHash, '', row.checkout_id);
    return viewOf(row, now);
  }
  // Without Redis nothing is cached and every poll reads Postgres.
  const stamp = await readStamp(deps, [ALL, checkoutCounter(checkoutId)]).catch(() => null);
  let row = stamp === null ? undefined : rows.get(tokenHash, stamp, now.getTime());
  if (!row) {
    row = await statusRow(deps.knex, tokenHash);
    if (!row) throw new NotFoundError(CHECKOUT_STATUS_NOT_FOUND).withCode('checkout_not_found');
    if (stamp !== null) rows.set(tokenHash, stamp, row, now.getTime());
  }
  return viewOf(row, now);
}
