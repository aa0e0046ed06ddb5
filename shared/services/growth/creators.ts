import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { FieldErrors, NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney } from '../../money';
import type { Refund } from '../../../db/models';
import { type Actor, recordAudit } from '../audit';
import { csvField } from '../invoices/report';

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

function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** The commission on `paidMinor` at `bp` basis points, rounded half up to the minor unit. */
export function commissionOf(paidMinor: number, bp: number): number {
  return Number(divideHalfUp(BigInt(paidMinor) * BigInt(bp), 10_000n));
}

async function currencyOf(knex: Knex, storeId: number): Promise<string> {
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

// ------------------------------------------------------------------ the ledger

/**
 * Credits the creator of a paid order's checkout with its commission, in the transaction that made the
 * order paid. Once per order (a unique index): a repeat does nothing. Returns the row written, if any.
 */
export interface LedgerEntry {
  storeId: number;
  creatorId: number;
  code: string;
  orderId: number;
  kind: 'earned' | 'reversed';
  refundId: number | null;
  revenueMinor: number;
  commissionMinor: number;
  currency: string;
}

/** The `creator.commission` webhook event of a ledger row (docs/growth.md). */
export function commissionEvent(entry: LedgerEntry) {
  return {
    type: 'creator.commission' as const,
    id: `creator.commission:${entry.kind}:${entry.refundId !== null ? `refund-${entry.refundId}` : `order-${entry.orderId}`}`,
    storeId: entry.storeId,
    data: {
      creator_id: entry.creatorId,
      code: entry.code,
      order_id: entry.orderId,
      kind: entry.kind,
      refund_id: entry.refundId,
      revenue: formatMoney(entry.revenueMinor, entry.currency),
      commission: formatMoney(entry.commissionMinor, entry.currency),
      currency: entry.currency,
    },
  };
}

export async function creditCreatorForOrder(trx: Knex, orderId: number): Promise<LedgerEntry | null> {
  const row = await trx('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .join('creators as cr', 'cr.id', 'c.creator_id')
    .where('o.id', orderId)
    .first<
      | {
          store_id: number;
          creator_id: number;
          code: string;
          total_minor: string;
          currency: string;
          commission_bp: number;
        }
      | undefined
    >('o.store_id', 'cr.id as creator_id', 'cr.code', 'o.total_minor', 'o.currency', 'cr.commission_bp');
  if (!row) return null;
  const paid = Number(row.total_minor);
  const commission = commissionOf(paid, Number(row.commission_bp));
  const inserted = await trx.raw(
    `insert into creator_commissions (store_id, creator_id, order_id, kind, revenue_minor, commission_minor, currency)
     values (?, ?, ?, 'earned', ?, ?, ?)
     on conflict (order_id) where kind = 'earned' do nothing
     returning id`,
    [row.store_id, row.creator_id, orderId, paid, commission, row.currency],
  );
  if ((inserted as { rows: unknown[] }).rows.length === 0) return null;
  return {
    storeId: Number(row.store_id),
    creatorId: Number(row.creator_id),
    code: row.code,
    orderId,
    kind: 'earned',
    refundId: null,
    revenueMinor: paid,
    commissionMinor: commission,
    currency: row.currency,
  };
}

/** What is left of an order's commission: earned less what refunds and disputes took back. */
async function remainingOf(trx: Knex, orderId: number) {
  const earned = await trx('creator_commissions as cc')
    .join('creators as c', 'c.id', 'cc.creator_id')
    .where({ 'cc.order_id': orderId, 'cc.kind': 'earned' })
    .forUpdate('cc')
    .first<
      | {
          store_id: number;
          creator_id: number;
          code: string;
          revenue_minor: string;
          commission_minor: string;
          currency: string;
        }
      | undefined
    >('cc.store_id', 'cc.creator_id', 'c.code', 'cc.revenue_minor', 'cc.commission_minor', 'cc.currency');
  if (!earned) return null;
  const back = await trx('creator_commissions')
    .where({ order_id: orderId, kind: 'reversed' })
    .first<{ revenue: string | null; commission: string | null }>(
      trx.raw('sum(revenue_minor) as revenue'),
      trx.raw('sum(commission_minor) as commission'),
    );
  return {
    earned,
    revenue: Number(earned.revenue_minor) + Number(back?.revenue ?? 0),
    commission: Number(earned.commission_minor) + Number(back?.commission ?? 0),
  };
}

async function reverse(
  trx: Knex,
  state: NonNullable<Awaited<ReturnType<typeof remainingOf>>>,
  orderId: number,
  refundId: number | null,
  revenue: number,
  commission: number,
): Promise<LedgerEntry | null> {
  const conflict =
    refundId !== null
      ? 'on conflict (refund_id) where refund_id is not null do nothing'
      : "on conflict (order_id) where kind = 'reversed' and refund_id is null do nothing";
  const inserted = await trx.raw(
    `insert into creator_commissions (store_id, creator_id, order_id, kind, refund_id, revenue_minor, commission_minor, currency)
     values (?, ?, ?, 'reversed', ?, ?, ?, ?)
     ${conflict}
     returning id`,
    [
      state.earned.store_id,
      state.earned.creator_id,
      orderId,
      refundId,
      -revenue,
      -commission,
      state.earned.currency,
    ],
  );
  if ((inserted as { rows: unknown[] }).rows.length === 0) return null;
  return {
    storeId: Number(state.earned.store_id),
    creatorId: Number(state.earned.creator_id),
    code: state.earned.code,
    orderId,
    kind: 'reversed',
    refundId,
    revenueMinor: -revenue,
    commissionMinor: -commission,
    currency: state.earned.currency,
  };
}

/**
 * A succeeded refund takes its share of the commission back: the refunded amount out of the revenue, and
 * the commission in the same proportion of what the order paid (rounded half up), never more than is
 * left; the refund that brings the order's refunds to its whole amount takes all that is left. Once per
 * refund (a unique index). Called by settleRefund in the transaction that marks the refund succeeded.
 */
export async function reverseCommissionForRefund(
  trx: Knex,
  refund: Pick<Refund, 'id' | 'order_id' | 'amount_minor'>,
): Promise<LedgerEntry | null> {
  const state = await remainingOf(trx, Number(refund.order_id));
  if (!state || state.revenue <= 0) return null;
  const paid = Number(state.earned.revenue_minor);
  const amount = Math.min(Number(refund.amount_minor), state.revenue);
  const whole = amount >= state.revenue;
  const commission = whole
    ? state.commission
    : Math.min(
        state.commission,
        Number(divideHalfUp(BigInt(Number(state.earned.commission_minor)) * BigInt(amount), BigInt(paid))),
      );
  return reverse(trx, state, Number(refund.order_id), Number(refund.id), amount, commission);
}

/**
 * A dispute takes back everything the order still holds of the creator's revenue and commission. For the
 * disputes flow to call in the transaction that marks the order disputed (and emit `commissionEvent` of
 * the answer through its unit of work); once per order.
 */
export async function reverseCommissionForDispute(trx: Knex, orderId: number): Promise<LedgerEntry | null> {
  const state = await remainingOf(trx, orderId);
  if (!state || (state.revenue <= 0 && state.commission <= 0)) return null;
  return reverse(trx, state, orderId, null, state.revenue, state.commission);
}

/**
 * The creator a checkout credits, and the discount the creator gives when no coupon does:
 * - `creator_code` names an active creator of the store, or the checkout is refused (422 naming it);
 * - else a `coupon_code` equal to an active creator's code credits that creator; when no coupon of the
 *   store has that code, the code is the creator's alone (`couponIsCreator`: no coupon is looked up).
 */
export async function creatorCreditOf(
  knex: Knex,
  storeId: number,
  creatorCode: string | undefined,
  couponCode: string | undefined,
): Promise<{ creator: CreatorRow | null; couponIsCreator: boolean; discountBp: number | null }> {
  const named = creatorCode?.trim();
  if (named) {
    const creator = await findCreatorByCode(knex, storeId, named);
    if (!creator) throw ValidationError.field('creator_code', 'No creator of this store has this code.');
    return { creator, couponIsCreator: false, discountBp: creator.discount_bp };
  }
  if (!couponCode) return { creator: null, couponIsCreator: false, discountBp: null };
  const creator = await findCreatorByCode(knex, storeId, couponCode);
  if (!creator) return { creator: null, couponIsCreator: false, discountBp: null };
  const coupon = await knex('coupons')
    .where('store_id', storeId)
    .whereRaw('lower(code) = lower(?)', [couponCode])
    .first('id');
  return { creator, couponIsCreator: !coupon, discountBp: creator.discount_bp };
}

// ------------------------------------------------------------------ reports

export interface CreatorMonth {
  month: string;
  orders: number;
  revenue: string;
  commission: string;
}

/** A creator's ledger by calendar month (UTC), newest first: paid orders, revenue and commission. */
export async function creatorMonths(
  knex: Knex,
  creatorId: number,
  currency: string,
): Promise<CreatorMonth[]> {
  const rows: { month: string; orders: number; revenue: string; commission: string }[] = await knex(
    'creator_commissions',
  )
    .where('creator_id', creatorId)
    .groupByRaw("to_char(created_at at time zone 'UTC', 'YYYY-MM')")
    .orderBy('month', 'desc')
    .limit(120)
    .select(
      knex.raw("to_char(created_at at time zone 'UTC', 'YYYY-MM') as month"),
      knex.raw("count(*) filter (where kind = 'earned')::int as orders"),
      knex.raw('sum(revenue_minor)::bigint as revenue'),
      knex.raw('sum(commission_minor)::bigint as commission'),
    );
  return rows.map((r) => ({
    month: r.month,
    orders: Number(r.orders),
    revenue: formatMoney(Number(r.revenue), currency),
    commission: formatMoney(Number(r.commission), currency),
  }));
}

/** The creator whose private page this secret opens, with the store's name and currency; or null. */
export async function creatorBySecret(
  knex: Knex,
  secret: string,
): Promise<{ creator: CreatorRow; storeName: string; currency: string } | null> {
  if (typeof secret !== 'string' || secret.length < 16 || secret.length > 100) return null;
  const row = await knex('creators as c')
    .join('stores as s', 's.id', 'c.store_id')
    .where('c.page_token_hash', sha256(secret))
    .first<(CreatorRow & { store_name: string; currency: string }) | undefined>(
      'c.*',
      's.name as store_name',
      's.currency',
    );
  if (!row) return null;
  const { store_name, currency, ...creator } = row;
  return { creator, storeName: store_name, currency };
}

/** Issues a new private page address for the creator; the old one stops working at once. */
export async function rotateCreatorPage(
  knex: Knex,
  actor: Actor,
  storeId: number,
  id: number,
  publicBaseUrl: string,
): Promise<{ id: number; page_url: string }> {
  const secret = randomToken(24);
  await knex.transaction(async (trx) => {
    const n = await trx('creators')
      .where({ id, store_id: storeId })
      .update({ page_token_hash: sha256(secret), updated_at: new Date() });
    if (n === 0) throw new NotFoundError(CREATOR_NOT_FOUND);
    await recordAudit(trx, actor, 'creator.page_rotated', { type: 'creator', id });
  });
  return { id, page_url: creatorPageUrl(publicBaseUrl, secret) };
}

/**
 * The payout report: one line per creator and month (UTC) with orders, revenue and commission owed,
 * as CSV (UTF-8 with a byte order mark, CRLF; text cells guarded against spreadsheet formulas).
 */
export async function payoutCsv(knex: Knex, storeId: number, month?: string): Promise<string> {
  const currency = await currencyOf(knex, storeId);
  const q = knex('creator_commissions as cc')
    .join('creators as c', 'c.id', 'cc.creator_id')
    .where('cc.store_id', storeId)
    .groupBy('c.id', 'c.name', 'c.code', knex.raw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM')"))
    .orderBy([{ column: 'month', order: 'desc' }, { column: 'c.id' }])
    .select(
      'c.id',
      'c.name',
      'c.code',
      knex.raw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM') as month"),
      knex.raw("count(*) filter (where cc.kind = 'earned')::int as orders"),
      knex.raw('sum(cc.revenue_minor)::bigint as revenue'),
      knex.raw('sum(cc.commission_minor)::bigint as commission'),
    );
  if (month) q.havingRaw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM') = ?", [month]);
  const rows: {
    id: number;
    name: string;
    code: string;
    month: string;
    orders: number;
    revenue: string;
    commission: string;
  }[] = await q;
  const lines = ['creator_id,name,code,month,orders,revenue,commission,currency'];
  for (const r of rows) {
    lines.push(
      [
        csvField(r.id, 'number'),
        csvField(r.name),
        csvField(r.code),
        csvField(r.month),
        csvField(r.orders, 'number'),
        csvField(formatMoney(Number(r.revenue), currency), 'number'),
        csvField(formatMoney(Number(r.commission), currency), 'number'),
        csvField(currency),
      ].join(','),
    );
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
