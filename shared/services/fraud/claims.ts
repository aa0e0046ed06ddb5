import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import { ConflictError, InvalidError, NotFoundError } from '../../errors';
import { stageJob } from '../../queues/outbox';
import type { TxDeps } from '../../unit-of-work';
import { noteStockChangedOn } from '../catalogue/cache';

/**
 * Key replacement claims (docs/fraud.md, "Key replacement claims"): a buyer says a delivered code key
 * does not work; the merchant approves (a replacement key from stock, once per key: the old key is marked
 * bad and stays on its order item, never on sale again) or declines with a note. The buyer is told by
 * message and e-mail (the `messages` job `key_claim`), and both sides see the claim's history.
 *
 * The buyer's proof outside the account (which uses its session: ../account/claims.ts): a signed claim link per code key, sent with
 * the delivery (`/claims/new?t=...`): `t` is the key's id and an HMAC of it under a key derived from the
 * platform secret, so only whoever received the delivery can claim, and for that key only.
 */

export type ClaimStatus = 'open' | 'approved' | 'declined';

export interface ClaimView {
  id: number;
  order_id: number;
  product_id: number | null;
  product_name: string;
  /** The key claimed (shown to the merchant and to the buyer who holds the link). */
  code: string;
  status: ClaimStatus;
  buyer_note: string | null;
  merchant_note: string | null;
  /** The replacement key once approved. */
  replacement_code: string | null;
  customer: { name: string; email: string; phone: string };
  created_at: string;
  decided_at: string | null;
}

const CLAIM_COLUMNS = [
  'k.id',
  'k.order_id',
  'k.status',
  'k.buyer_note',
  'k.merchant_note',
  'k.created_at',
  'k.decided_at',
  'c.code',
  'c.product_id',
  'r.code as replacement_code',
  'i.name as product_name',
  'o.customer_first_name',
  'o.customer_last_name',
  'o.customer_email',
  'o.customer_country_code',
  'o.customer_phone',
];

function claimsQuery(knex: Knex): Knex.QueryBuilder {
  return knex('key_claims as k')
    .join('product_codes as c', 'c.id', 'k.product_code_id')
    .leftJoin('product_codes as r', 'r.id', 'k.replacement_code_id')
    .join('order_items as i', 'i.id', 'c.order_item_id')
    .join('orders as o', 'o.id', 'k.order_id')
    .select(CLAIM_COLUMNS);
}

function toView(r: Record<string, unknown>): ClaimView {
  return {
    id: Number(r.id),
    order_id: Number(r.order_id),
    product_id: r.product_id === null ? null : Number(r.product_id),
    product_name: String(r.product_name),
    code: String(r.code),
    status: r.status as ClaimStatus,
    buyer_note: (r.buyer_note as string | null) ?? null,
    merchant_note: (r.merchant_note as string | null) ?? null,
    replacement_code: (r.replacement_code as string | null) ?? null,
    customer: {
      name: `${String(r.customer_first_name)} ${String(r.customer_last_name)}`.trim(),
      email: String(r.customer_email),
      phone: `+${String(r.customer_country_code)}${String(r.customer_phone)}`,
    },
    created_at: new Date(r.created_at as Date).toISOString(),
    decided_at: r.decided_at ? new Date(r.decided_at as Date).toISOString() : null,
  };
}

export async function listClaims(
  knex: Knex,
  storeId: number,
  opts: { status?: ClaimStatus; limit?: number } = {},
): Promise<ClaimView[]> {
  const q = claimsQuery(knex)
    .where('k.store_id', storeId)
    .orderBy('k.id', 'desc')
    .limit(opts.limit ?? 100);
  if (opts.status) q.where('k.status', opts.status);
  const rows: Record<string, unknown>[] = await q;
  return rows.map(toView);
}

export async function findClaim(
  knex: Knex,
  claimId: number,
): Promise<(ClaimView & { store_id: number; locale: string }) | null> {
  const row = await claimsQuery(knex).select('k.store_id', 'k.locale').where('k.id', claimId).first();
  return row ? { ...toView(row), store_id: Number(row.store_id), locale: String(row.locale) } : null;
}

/** The key a claim link names, with its claims (newest first): what the buyer's claim page shows. */
export interface ClaimableKey {
  productCodeId: number;
  code: string;
  productName: string;
  orderId: number;
  storeName: string;
  /** A claim can be made now: the order is paid, not disputed, and the key has no open or approved claim. */
  claimable: boolean;
  claims: ClaimView[];
}

export async function claimableKey(knex: Knex, productCodeId: number): Promise<ClaimableKey | null> {
  const row = await knex('product_codes as c')
    .join('order_items as i', 'i.id', 'c.order_item_id')
    .join('orders as o', 'o.id', 'i.order_id')
    .join('stores as s', 's.id', 'o.store_id')
    .where('c.id', productCodeId)
    .where('c.status', 'sold')
    .first<
      | {
          code: string;
          name: string;
          order_id: number;
          store_name: string;
          status: number;
          disputed_at: Date | null;
        }
      | undefined
    >('c.code', 'i.name', 'o.id as order_id', 's.name as store_name', 'o.status', 'o.disputed_at');
  if (!row) return null;
  const rows: Record<string, unknown>[] = await claimsQuery(knex)
    .where('k.product_code_id', productCodeId)
    .orderBy('k.id', 'desc');
  const claims = rows.map(toView);
  const paid = [ORDER_STATUS.IN_PROGRESS, ORDER_STATUS.COMPLETED].includes(Number(row.status) as 3 | 4);
  return {
    productCodeId,
    code: row.code,
    productName: row.name,
    orderId: Number(row.order_id),
    storeName: row.store_name,
    claimable: paid && !row.disputed_at && !claims.some((c) => c.status !== 'declined'),
    claims,
  };
}

export const CLAIM_EXISTS = 'This key already has a claim';
export const CLAIM_NOT_ALLOWED = 'This key cannot be claimed';
export const NO_REPLACEMENT = 'No key of this product is left in stock to replace it';

/**
 * The buyer's claim on one delivered key (also called by the buyer account, ../account/claims.ts, with its own proof).
 * One open or approved claim per key: a second is a 409, also when two arrive at once (the unique index).
 */
export async function openClaim(
  deps: TxDeps & { knex: Knex },
  productCodeId: number,
  input: { note?: string | null; locale?: 'ar' | 'en' },
): Promise<ClaimView> {
  const key = await claimableKey(deps.knex, productCodeId);
  if (!key) throw new NotFoundError('Key not found');
  if (!key.claimable) {
    if (key.claims.some((c) => c.status !== 'declined')) throw new ConflictError(CLAIM_EXISTS);
    throw new InvalidError(CLAIM_NOT_ALLOWED);
  }
  const id = await deps
    .tx(async ({ trx }) => {
      const order = await trx('orders').where('id', key.orderId).first<{ store_id: number }>('store_id');
      const [row] = await trx('key_claims')
        .insert({
          store_id: order.store_id,
          order_id: key.orderId,
          product_code_id: productCodeId,
          buyer_note: input.note?.trim().slice(0, 1000) || null,
          locale: input.locale ?? 'en',
        })
        .returning<{ id: number }[]>('id');
      return Number(row!.id);
    })
    .catch((err: { code?: string }) => {
      if (err.code === '23505') throw new ConflictError(CLAIM_EXISTS);
      throw err;
    });
  return (await findClaim(deps.knex, id))!;
}

/**
 * The merchant's answer. Approve: a replacement key of the same product from stock (FOR UPDATE SKIP LOCKED:
 * two approvals never take one key), sold to the same order item; the claimed key is marked bad (it stays
 * sold, on its item, so it is never on sale again). Decline: with the merchant's note. Either way, once:
 * only an open claim is decided (a second answer is a 409), and the buyer's message and e-mail are staged
 * with the decision.
 */
export async function decideClaim(
  deps: TxDeps,
  storeId: number,
  claimId: number,
  decision: { approve: boolean; note?: string | null },
  now: Date = new Date(),
): Promise<void> {
  await deps.tx(async (uow) => {
    const { trx } = uow;
    const claim = await trx('key_claims')
      .where({ id: claimId, store_id: storeId })
      .forUpdate()
      .first<{ id: number; status: ClaimStatus; product_code_id: number } | undefined>(
        'id',
        'status',
        'product_code_id',
      );
    if (!claim) throw new NotFoundError('Claim not found');
    if (claim.status !== 'open') throw new ConflictError('This claim was already answered');
    const note = decision.note?.trim().slice(0, 1000) || null;
    if (!decision.approve) {
      await trx('key_claims')
        .where('id', claimId)
        .update({ status: 'declined', merchant_note: note, decided_at: now });
    } else {
      const old = await trx('product_codes')
        .where('id', claim.product_code_id)
        .forUpdate()
        .first<{ id: number; product_id: number; order_item_id: number }>(
          'id',
          'product_id',
          'order_item_id',
        );
      const [replacement] = await trx('product_codes')
        .where({ product_id: old.product_id, status: 'available' })
        .whereNull('bad_at')
        .orderBy('id')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .select<{ id: number }[]>('id');
      if (!replacement) throw new InvalidError(NO_REPLACEMENT).withCode('out_of_stock');
      await trx('product_codes')
        .where('id', replacement.id)
        .update({ status: 'sold', order_item_id: old.order_item_id, sold_at: now });
      await trx('product_codes').where('id', old.id).update({ bad_at: now });
      await trx('key_claims').where('id', claimId).update({
        status: 'approved',
        merchant_note: note,
        replacement_code_id: replacement.id,
        decided_at: now,
      });
      // The product answers show stock: one key fewer.
      noteStockChangedOn(uow, [Number(old.product_id)]);
    }
    uow.stage(
      await stageJob(trx, 'messages', { kind: 'key_claim', claimId }, { jobId: `key-claim-${claimId}` }),
    );
  });
}
