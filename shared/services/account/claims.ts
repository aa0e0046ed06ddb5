import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { claimableKey, openClaim, type ClaimStatus, type ClaimView } from '../fraud/claims';
import { whereBuyerOwns } from './identity';
import type { BuyerIdentity } from './sessions';

/**
 * Key replacement claims from the buyer's account (docs/account.md, "This key does not work"): the buyer's
 * proof is their session, so a key is claimable here when it was delivered on one of their orders
 * (whereBuyerOwns). Everything else is the fraud claims service (shared/services/fraud/claims.ts): one
 * open or approved claim per key, the merchant's answer on the Fraud page, the buyer told by message and
 * e-mail. Another buyer's key answers NotFound exactly as one that does not exist.
 */

/** What the account shows beside one delivered code key. */
export interface AccountKey {
  id: number;
  code: string;
  /** Marked bad by an approved claim: replaced, shown struck through. */
  bad: boolean;
  claimable: boolean;
  claims: Pick<
    ClaimView,
    'id' | 'status' | 'buyer_note' | 'merchant_note' | 'replacement_code' | 'created_at' | 'decided_at'
  >[];
}

/** The delivered keys of the buyer's order items (paid orders only), each with its claims, newest first. */
export async function accountKeys(knex: Knex, itemIds: number[]): Promise<Map<number, AccountKey[]>> {
  const out = new Map<number, AccountKey[]>();
  if (itemIds.length === 0) return out;
  const rows = (await knex('product_codes')
    .whereIn('order_item_id', itemIds)
    .where('status', 'sold')
    .orderBy('id')
    .select('id', 'order_item_id', 'code', 'bad_at')) as {
    id: number;
    order_item_id: number;
    code: string;
    bad_at: Date | null;
  }[];
  const claimed = new Set(
    (
      (await knex('key_claims')
        .whereIn(
          'product_code_id',
          rows.map((r) => r.id),
        )
        .distinct('product_code_id')) as { product_code_id: number }[]
    ).map((r) => Number(r.product_code_id)),
  );
  for (const r of rows) {
    // The claims service decides what may be claimed and reads the history; keys never claimed skip it.
    const found = claimed.has(Number(r.id)) ? await claimableKey(knex, Number(r.id)) : null;
    const key: AccountKey = {
      id: Number(r.id),
      code: r.code,
      bad: r.bad_at !== null,
      claimable: found ? found.claimable : r.bad_at === null,
      claims: (found?.claims ?? []).map((c) => ({
        id: c.id,
        status: c.status,
        buyer_note: c.buyer_note,
        merchant_note: c.merchant_note,
        replacement_code: c.replacement_code,
        created_at: c.created_at,
        decided_at: c.decided_at,
      })),
    };
    out.set(r.order_item_id, [...(out.get(r.order_item_id) ?? []), key]);
  }
  return out;
}

export type { ClaimStatus };

/**
 * "This key does not work": a claim on one of the buyer's delivered keys, through openClaim (which refuses
 * a key with an open or approved claim, 409, and one of an order no longer paid or disputed).
 */
export async function claimKeyFromAccount(
  deps: TxDeps & { knex: Knex },
  identity: BuyerIdentity,
  productCodeId: number,
  input: { note?: string | null; locale: 'ar' | 'en' },
): Promise<ClaimView> {
  const owned = (await whereBuyerOwns(
    deps
      .knex('product_codes as c')
      .join('order_items as i', 'i.id', 'c.order_item_id')
      .join('orders as o', 'o.id', 'i.order_id'),
    identity,
  )
    .where('c.id', productCodeId)
    .where('c.status', 'sold')
    .whereIn('o.status', [3, 4])
    .first('c.id')) as { id: number } | undefined;
  if (!owned) throw new NotFoundError('Key not found');
  return openClaim(deps, Number(owned.id), input);
}
