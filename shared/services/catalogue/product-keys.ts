import type { Knex } from 'knex';
import { ConflictError, NotFoundError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { noteStockChangedOn } from './cache';
import { type Actor, recordAudit } from '../audit';
import { codeCounts } from './read';

/**
 * A code product's keys on its dashboard page (docs/dashboard.md, "Product page"): the counts (left,
 * held by a checkout, sold, withdrawn), the keys themselves masked to their last four characters, and the
 * Delete of one unsold key.
 *
 * Delete and a sale never both take a key. The checkout reserves keys with `select … for update skip
 * locked` on `status = 'available'` rows (shared/services/checkout) and a paid order sells reserved (or,
 * for a lapsed reservation, available) rows the same way; the delete is one conditional statement on
 * `status = 'available'`. Whichever locks the row first wins: a checkout that got there first has moved
 * the row out of `available` (Postgres re-reads the row after the lock and the delete then matches
 * nothing, refused as sold or held); a delete that got there first holds the row until its commit and the
 * checkout skips it (and sees one key fewer). A sold key belongs to its buyer's order and is never deleted.
 */

/** Keys the page lists at once (newest first). */
export const KEYS_PER_PAGE = 50;

export interface KeyCounts {
  /** Available for sale: the product's stock. */
  available: number;
  /** Held by an unpaid checkout (back on sale if it lapses). */
  reserved: number;
  sold: number;
  /** Withdrawn by the merchant (deleted): counted from the audit log, the keys themselves are gone. */
  withdrawn: number;
}

export interface KeyRow {
  id: number;
  /** The key masked to its last four characters. */
  masked: string;
  last4: string;
  status: 'available' | 'reserved' | 'sold';
  created_at: Date;
  sold_at: Date | null;
}

/** The key as the dashboard shows it: bullets, then its last four characters. */
export function maskKey(code: string): string {
  const chars = [...code];
  return chars.length <= 4 ? '••••' : `••••${chars.slice(-4).join('')}`;
}

/** The product's key counts by state, with the withdrawn ones. */
export async function productKeyCounts(knex: Knex, storeId: number, productId: number): Promise<KeyCounts> {
  const counts = await codeCounts(knex, productId);
  const [row] = (await knex('merchant_audit_events')
    .where({
      store_id: storeId,
      resource_type: 'product',
      resource_id: productId,
      action: 'product.codes_withdrawn',
    })
    .select(knex.raw("coalesce(sum((changes->>'withdrawn')::int), 0)::int as n"))) as { n: number }[];
  return { ...counts, withdrawn: Number(row?.n ?? 0) };
}

/** One page of the product's keys (every state), newest first. */
export async function listProductKeys(
  knex: Knex,
  storeId: number,
  productId: number,
  page: number,
): Promise<{ items: KeyRow[]; page: number; pages: number; counts: KeyCounts }> {
  const counts = await productKeyCounts(knex, storeId, productId);
  const total = counts.available + counts.reserved + counts.sold;
  const pages = Math.max(1, Math.ceil(total / KEYS_PER_PAGE));
  const at = Math.min(Math.max(1, page), pages);
  const rows = (await knex('product_codes as c')
    .join('products as p', 'p.id', 'c.product_id')
    .where({ 'c.product_id': productId, 'p.store_id': storeId })
    .orderBy('c.id', 'desc')
    .limit(KEYS_PER_PAGE)
    .offset((at - 1) * KEYS_PER_PAGE)
    .select('c.id', 'c.code', 'c.status', 'c.created_at', 'c.sold_at')) as {
    id: number;
    code: string;
    status: KeyRow['status'];
    created_at: Date;
    sold_at: Date | null;
  }[];
  return {
    items: rows.map((r) => ({
      id: Number(r.id),
      masked: maskKey(r.code),
      last4: [...r.code].slice(-4).join(''),
      status: r.status,
      created_at: r.created_at,
      sold_at: r.sold_at,
    })),
    page: at,
    pages,
    counts,
  };
}

/** Why a key could not be deleted. */
export type KeyRefusal = 'sold' | 'reserved';

export class KeyNotDeletableError extends ConflictError {
  constructor(readonly reason: KeyRefusal) {
    super(reason === 'sold' ? 'A sold key cannot be deleted.' : 'A checkout in progress holds this key.');
  }
}

/**
 * Deletes one unsold key of the store's product, audited as `product.codes_withdrawn` (as the Merchant
 * API's withdrawal is). NotFoundError: no such key on this store's product; KeyNotDeletableError: sold, or
 * held by a checkout in progress, at the moment of the delete.
 */
export async function deleteUnsoldKey(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
  productId: number,
  keyId: number,
): Promise<{ available: number; last4: string }> {
  return deps.tx(async (uow) => {
    const { trx } = uow;
    const deleted = (await trx('product_codes')
      .where({ id: keyId, product_id: productId, status: 'available' })
      .whereIn('product_id', trx('products').select('id').where('store_id', storeId))
      .delete()
      .returning('code')) as { code: string }[];
    if (deleted.length === 0) {
      const row = (await trx('product_codes as c')
        .join('products as p', 'p.id', 'c.product_id')
        .where({ 'c.id': keyId, 'c.product_id': productId, 'p.store_id': storeId })
        .first('c.status')) as { status: string } | undefined;
      if (!row) throw new NotFoundError('No such key on this product.');
      throw new KeyNotDeletableError(row.status === 'sold' ? 'sold' : 'reserved');
    }
    const last4 = [...deleted[0]!.code].slice(-4).join('');
    await recordAudit(
      trx,
      actor,
      'product.codes_withdrawn',
      { type: 'product', id: productId },
      { withdrawn: 1, key_id: keyId, last4 },
    );
    noteStockChangedOn(uow, [productId]);
    const { available } = await codeCounts(trx, productId);
    return { available, last4 };
  });
}
