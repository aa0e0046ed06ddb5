import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { noteStockChangedOn } from './cache';
import { type Actor, recordAudit } from '../audit';
import { codeCounts, PRODUCT_NOT_FOUND } from './read';
import { paginate, type PageMeta, type PageRequest } from '../../pagination';
import { insertCodes } from './product-writes';

/**
 * A code product's key stock. Keys are added in one statement (`insert … select unnest(…) on conflict do
 * nothing`), so 10,000 keys are one round trip and a key the product already has (in any state) is
 * skipped, never duplicated, even when two uploads race. Only unsold keys are ever listed or withdrawn:
 * a sold key belongs to its buyer's order.
 */

/**
 * The product whose keys change, locked. Any type may hold keys, as in a fixture (a `code` product sells
 * them one per unit; the others keep them for the merchant).
 */
async function codeProduct(trx: Knex, storeId: number, productId: number): Promise<void> {
  const row = await trx('products')
    .where({ id: productId, store_id: storeId })
    .whereNull('archived_at')
    .forUpdate()
    .first('id');
  if (!row) throw new NotFoundError(PRODUCT_NOT_FOUND);
}

export interface CodesAdded {
  added: number;
  /** How many of the codes sent the product already had (or that were sent twice). */
  skipped: number;
  /** The skipped codes themselves (the merchant's own input), at most 1,000. */
  skipped_codes: string[];
  available: number;
}

export async function addCodes(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
  productId: number,
  codes: string[],
): Promise<CodesAdded> {
  return deps.tx(async (uow) => {
    const { trx } = uow;
    await codeProduct(trx, storeId, productId);
    const inserted = new Set(await insertCodes(trx, productId, codes));
    const skipped: string[] = [];
    const counted = new Set<string>();
    for (const code of codes) {
      if (inserted.has(code) && !counted.has(code)) counted.add(code);
      else skipped.push(code);
    }
    if (inserted.size > 0) {
      await recordAudit(
        trx,
        actor,
        'product.codes_added',
        { type: 'product', id: productId },
        { added: inserted.size, skipped: skipped.length },
      );
      noteStockChangedOn(uow, [productId]);
    }
    const { available } = await codeCounts(trx, productId);
    return {
      added: inserted.size,
      skipped: skipped.length,
      skipped_codes: skipped.slice(0, 1000),
      available,
    };
  });
}

/** Reads `codes` out of CSV text: the first column of each line, a header line `code` skipped, quotes undone. */
export function codesFromCsv(csv: string): string[] {
  const out: string[] = [];
  for (const [i, rawLine] of csv.split(/\r?\n/).entries()) {
    const line = rawLine.trim();
    if (line === '') continue;
    let first: string;
    if (line.startsWith('"')) {
      // A quoted field ends at the first quote not doubled ("" is a quote inside it).
      let at = 1;
      first = '';
      while (at < line.length) {
        const quote = line.indexOf('"', at);
        if (quote === -1) {
          first += line.slice(at);
          break;
        }
        first += line.slice(at, quote);
        if (line[quote + 1] === '"') {
          first += '"';
          at = quote + 2;
        } else break;
      }
    } else {
      first = line.split(/[,;\t]/)[0]!.trim();
    }
    if (i === 0 && /^(code|codes|key|keys)$/i.test(first)) continue;
    if (first !== '') out.push(first);
  }
  return out;
}

export interface CodeView {
  id: number;
  code: string;
  created_at: string;
}

/** The unsold keys (available ones; a key held by an unpaid checkout is counted, not listed). */
export async function listCodes(
  knex: Knex,
  storeId: number,
  productId: number,
  page: PageRequest,
): Promise<{
  items: CodeView[];
  meta: PageMeta;
  counts: { available: number; reserved: number; sold: number };
}> {
  const product = await knex('products').where({ id: productId, store_id: storeId }).first('type');
  if (!product) throw new NotFoundError(PRODUCT_NOT_FOUND);
  const base = knex('product_codes')
    .where({ product_id: productId, status: 'available' })
    .select('id', 'code', 'created_at');
  const { rows, meta } = await paginate<{ id: number; code: string; created_at: Date }>(base, page, (q) =>
    q.orderBy('id'),
  );
  return {
    items: rows.map((r) => ({
      id: Number(r.id),
      code: r.code,
      created_at: new Date(r.created_at).toISOString(),
    })),
    meta,
    counts: await codeCounts(knex, productId),
  };
}

/**
 * Withdraws unsold keys: the codes named, or every available one with `all`. A key that is sold or held by
 * an unpaid checkout is left alone and counted in `not_withdrawn`.
 */
export async function withdrawCodes(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
  productId: number,
  which: { codes?: string[]; all?: boolean },
): Promise<{ withdrawn: number; not_withdrawn: number; available: number }> {
  return deps.tx(async (uow) => {
    const { trx } = uow;
    await codeProduct(trx, storeId, productId);
    const query = trx('product_codes').where({ product_id: productId, status: 'available' });
    const named = [...new Set(which.codes ?? [])];
    if (!which.all) query.whereIn('code', named);
    const withdrawn = await query.delete();
    if (withdrawn > 0) {
      await recordAudit(
        trx,
        actor,
        'product.codes_withdrawn',
        { type: 'product', id: productId },
        { withdrawn },
      );
      noteStockChangedOn(uow, [productId]);
    }
    const { available } = await codeCounts(trx, productId);
    return { withdrawn, not_withdrawn: which.all ? 0 : named.length - withdrawn, available };
  });
}
