import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { FieldErrors, NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney } from '../../money';
import { type Actor, recordAudit } from '../audit';

/**
 * Creator codes (docs/growth.md, "Creator codes"): a creator has a code (unique in the store whatever the
 * case), a commission (basis points of what the buyer paid) and an optional discount for the buyer.
 * A checkout credits a creator by its `creator_code` field, by a `coupon_code` equal to the creator's
 * code, or by the `?ref=CODE` a store page remembered (`refCodeOf`). The ledger (`creator_commissions`)
 * holds one `earned` row per paid order and one `reversed` row per refund (in proportion) or dispute.
 */

export const CREATOR_NOT_FOUND = 'Creator not found';
export const CODE = /^[A-Za-z0-9_-]{2,100}$/;

export interface CreatorRow {
  id: number;
  store_id: number;
  name: string;
  code: string;
  commission_bp: number;
  discount_bp: number | null;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface CreatorView {
  id: number;
  name: string;
  code: string;
  commission_percent: string;
  discount_percent: string | null;
  active: boolean;
  /** Paid orders credited to the creator. */
  orders: number;
  /** What those orders paid, less refunds. */
  revenue: string;
  /** The creator's share of it, less refunds and disputes. */
  commission: string;
  currency: string;
  created_at: string;
  updated_at: string;
}

export async function currencyOf(knex: Knex, storeId: number): Promise<string> {
  const store = await knex('stores').where('id', storeId).first<{ currency: string } | undefined>('currency');
  return store?.currency ?? 'SAR';
}

interface Totals {
  orders: number;
  revenue: number;
  commission: number;
}

async function totalsOf(knex: Knex, creatorIds: number[]): Promise<Map<number, Totals>> {
  const out = new Map<number, Totals>();
  if (creatorIds.length === 0) return out;
  const rows: { creator_id: number; orders: number; revenue: string; commission: string }[] = await knex(
    'creator_commissions',
  )
    .whereIn('creator_id', creatorIds)
    .groupBy('creator_id')
    .select(
      'creator_id',
      knex.raw("count(*) filter (where kind = 'earned')::int as orders"),
      knex.raw('coalesce(sum(revenue_minor), 0)::bigint as revenue'),
      knex.raw('coalesce(sum(commission_minor), 0)::bigint as commission'),
    );
  for (const r of rows) {
    out.set(Number(r.creator_id), {
      orders: Number(r.orders),
      revenue: Number(r.revenue),
      commission: Number(r.commission),
    });
  }
  return out;
}

function toView(row: CreatorRow, totals: Totals | undefined, currency: string): CreatorView {
  return {
    id: Number(row.id),
    name: row.name,
    code: row.code,
    commission_percent: formatMoney(Number(row.commission_bp), null),
    discount_percent: row.discount_bp === null ? null : formatMoney(Number(row.discount_bp), null),
    active: row.active,
    orders: totals?.orders ?? 0,
    revenue: formatMoney(totals?.revenue ?? 0, currency),
    commission: formatMoney(totals?.commission ?? 0, currency),
    currency,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function listCreators(knex: Knex, storeId: number): Promise<CreatorView[]> {
  const rows = (await knex('creators')
    .where('store_id', storeId)
    .orderBy('id', 'desc')
    .limit(1000)) as CreatorRow[];
  const totals = await totalsOf(
    knex,
    rows.map((r) => Number(r.id)),
  );
  const currency = await currencyOf(knex, storeId);
  return rows.map((r) => toView(r, totals.get(Number(r.id)), currency));
}

export async function creatorDetail(knex: Knex, storeId: number, id: number): Promise<CreatorView> {
  const row = (await knex('creators').where({ id, store_id: storeId }).first()) as CreatorRow | undefined;
  if (!row) throw new NotFoundError(CREATOR_NOT_FOUND);
  return toView(row, (await totalsOf(knex, [row.id])).get(Number(row.id)), await currencyOf(knex, storeId));
}

export interface CreatorInput {
  name: string;
  code: string;
  commission_percent: string;
  discount_percent?: string | null;
  active?: boolean;
}
export type CreatorPatch = Partial<CreatorInput>;

function bpOf(value: string | null | undefined, field: string, errors: FieldErrors): number | null {
  if (value === undefined || value === null) return null;
  const bp = parseMoney(String(value), null);
  if (bp === null || bp < 0 || bp > 10_000) {
    errors[field] = ['must be a percentage between 0 and 100, with at most 2 decimals'];
    return null;
  }
  return bp;
}

const CODE_TAKEN = 'is already the code of a creator or a coupon of this store';

/** A creator's code may not be another creator's, nor a coupon's unless it is meant as one (same code). */
async function assertCodeFree(trx: Knex, storeId: number, code: string, creatorId: number | null) {
  const q = trx('creators').where('store_id', storeId).whereRaw('lower(code) = lower(?)', [code]);
  if (creatorId !== null) q.whereNot('id', creatorId);
  if (await q.first('id')) throw ValidationError.field('code', CODE_TAKEN);
}

function uniqueViolation(err: unknown): ValidationError | null {
  return (err as { code?: string }).code === '23505' ? ValidationError.field('code', CODE_TAKEN) : null;
}

/** The creator, and the private page's address: shown once (only its hash is kept). */
export async function createCreator(
  knex: Knex,
  actor: Actor,
  storeId: number,
  input: CreatorInput,
  publicBaseUrl: string,
): Promise<CreatorView & { page_url: string }> {
  const errors: FieldErrors = {};
  const commission = bpOf(input.commission_percent, 'commission_percent', errors);
  const discount = bpOf(input.discount_percent, 'discount_percent', errors);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const secret = randomToken(24);
  const id = await knex
    .transaction(async (trx) => {
      await assertCodeFree(trx, storeId, input.code, null);
      const [row] = await trx('creators')
        .insert({
          store_id: storeId,
          name: input.name.trim(),
          code: input.code,
          commission_bp: commission ?? 0,
          discount_bp: discount,
          active: input.active ?? true,
          page_token_hash: sha256(secret),
        })
        .returning('id');
      const creatorId = Number((row as { id: number }).id);
      await recordAudit(trx, actor, 'creator.created', { type: 'creator', id: creatorId }, { ...input });
      return creatorId;
    })
    .catch((err: unknown) => {
      throw uniqueViolation(err) ?? err;
    });
  return { ...(await creatorDetail(knex, storeId, id)), page_url: creatorPageUrl(publicBaseUrl, secret) };
}

export function creatorPageUrl(publicBaseUrl: string, secret: string): string {
  return `${publicBaseUrl}/creators/${encodeURIComponent(secret)}`;
}

export async function updateCreator(
  knex: Knex,
  actor: Actor,
  storeId: number,
  id: number,
  patch: CreatorPatch,
): Promise<CreatorView> {
  const errors: FieldErrors = {};
  const columns: Record<string, unknown> = {};
  if (patch.name !== undefined) columns.name = patch.name.trim();
  if (patch.code !== undefined) columns.code = patch.code;
  if (patch.commission_percent !== undefined)
    columns.commission_bp = bpOf(patch.commission_percent, 'commission_percent', errors);
  if (patch.discount_percent !== undefined)
    columns.discount_bp = bpOf(patch.discount_percent, 'discount_percent', errors);
  if (patch.active !== undefined) columns.active = patch.active;
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  await knex
    .transaction(async (trx) => {
      const row = await trx('creators').where({ id, store_id: storeId }).forUpdate().first('id');
      if (!row) throw new NotFoundError(CREATOR_NOT_FOUND);
      if (patch.code !== undefined) await assertCodeFree(trx, storeId, patch.code, id);
      await trx('creators')
        .where('id', id)
        .update({ ...columns, updated_at: new Date() });
      await recordAudit(trx, actor, 'creator.updated', { type: 'creator', id }, { ...patch });
    })
    .catch((err: unknown) => {
      throw uniqueViolation(err) ?? err;
    });
  return creatorDetail(knex, storeId, id);
}

/**
 * A creator with no ledger is deleted; one with commissions is deactivated (its code credits nobody from
 * now on) so the payout report keeps its rows.
 */
export async function deleteCreator(
  knex: Knex,
  actor: Actor,
  storeId: number,
  id: number,
): Promise<{ id: number; deleted: boolean; active: boolean }> {
  return knex.transaction(async (trx) => {
    const row = await trx('creators').where({ id, store_id: storeId }).forUpdate().first('id');
    if (!row) throw new NotFoundError(CREATOR_NOT_FOUND);
    const used = await trx('creator_commissions').where('creator_id', id).first('id');
    const inCheckouts = await trx('checkouts').where('creator_id', id).first('id');
    await recordAudit(trx, actor, 'creator.deleted', { type: 'creator', id });
    if (used || inCheckouts) {
      await trx('creators').where('id', id).update({ active: false, updated_at: new Date() });
      return { id, deleted: false, active: false };
    }
    await trx('creators').where('id', id).delete();
    return { id, deleted: true, active: false };
  });
}

/** The store's active creator with this code (any case), or undefined. */
export async function findCreatorByCode(
  knex: Knex,
  storeId: number,
  code: string,
): Promise<CreatorRow | undefined> {
  if (!CODE.test(code)) return undefined;
  return (await knex('creators')
    .where({ store_id: storeId, active: true })
    .whereRaw('lower(code) = lower(?)', [code])
    .first()) as CreatorRow | undefined;
}
