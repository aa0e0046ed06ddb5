import type { Knex } from 'knex';
import { parsePhone } from '../../phone';
import type { BuyerIdentity } from './sessions';

/**
 * Which orders are the buyer's (docs/account.md, "Whose orders"): those placed with the phone they signed
 * in with, in any store (the spec treats a phone known in any store as one customer), or, signed in by
 * e-mail, those placed with that address. Never both: a buyer who signs in by e-mail sees only the orders
 * that carry that e-mail, whatever phone they were placed with.
 *
 * Shown: paid or free orders (in progress or completed) and those that were and were then cancelled or
 * refunded; never an order awaiting payment or a transfer under review.
 */
export const ACCOUNT_STATUSES = [3, 4, 5, 6] as const;

/** The country code and national number of E.164 digits (the sign-in kept only those). */
export function splitE164(e164: string): { countryCode: string; national: string } | null {
  for (let length = 1; length <= 4; length += 1) {
    const parsed = parsePhone(e164.slice(0, length), e164.slice(length));
    if (parsed && parsed.e164 === e164) return { countryCode: parsed.countryCode, national: parsed.national };
  }
  return null;
}

/** Restricts `orders as o` to the identity's orders (any status): the one place that decides. */
export function whereBuyerOwns(q: Knex.QueryBuilder, identity: BuyerIdentity): Knex.QueryBuilder {
  if (identity.kind === 'email') {
    return q.whereRaw("lower(o.customer_email) = ? and o.customer_email <> ''", [identity.value]);
  }
  const phone = splitE164(identity.value);
  if (!phone) return q.whereRaw('false');
  return q
    .whereIn('o.customer_phone', [phone.national, `0${phone.national}`])
    .whereRaw("regexp_replace(o.customer_country_code, '\\D', '', 'g') = ?", [phone.countryCode]);
}

/** The identity's order with this id, shown in the account, or null (another buyer's is null too). */
export async function ownedOrderId(
  knex: Knex,
  identity: BuyerIdentity,
  orderId: number,
): Promise<{ id: number; store_id: number; status: number } | null> {
  const row = (await whereBuyerOwns(knex('orders as o'), identity)
    .where('o.id', orderId)
    .whereIn('o.status', ACCOUNT_STATUSES)
    .first('o.id', 'o.store_id', 'o.status')) as { id: number; store_id: number; status: number } | undefined;
  return row ? { id: row.id, store_id: row.store_id, status: Number(row.status) } : null;
}
