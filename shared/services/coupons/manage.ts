import type { Knex } from 'knex';
import { FieldErrors, messagesOf, NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney, precisionMessage } from '../../money';
import type { CouponInput, CouponPatch } from '../catalogue/schema';
import { type Actor, diff, recordAudit } from '../audit';
import { paginate, type PageMeta, type PageRequest } from '../../pagination';
import { iso } from '../../views';

/**
 * Coupons written through the Merchant API, with the rules the checkout enforces (shared/services/coupons):
 * percentage (at most 100) or fixed amount, maximum uses, minimum order, products, payment methods,
 * start and expiry. A code is unique in its store regardless of case (422 naming `code`). A coupon that
 * has been used is deactivated by DELETE, never deleted: its orders keep their discount's record.
 */

export const COUPON_NOT_FOUND = 'Coupon not found';
const CODE_TAKEN = 'is already used by another coupon of this store';

export interface CouponView {
  id: number;
  code: string;
  type: 'percentage' | 'fixed';
  amount: string;
  active: boolean;
  max_uses: number | null;
  uses: number;
  /** Uses held by checkouts not yet paid. */
  reserved_uses: number;
  min_order: string | null;
  products: number[];
  payment_restrictions: string[];
  starts_at: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

type Row = {
  id: number;
  code: string;
  type: 'percentage' | 'fixed';
  amount: string | number;
  active: boolean;
  max_uses: number | null;
  uses_count: number;
  reserved_uses: number;
  min_order_minor: string | number | null;
  payment_restrictions: string[];
  starts_at: Date | null;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

/** The store's currency: a fixed coupon's amount and every minimum order are money in it. */
async function currencyOf(knex: Knex, storeId: number): Promise<string> {
  const store = await knex('stores').where('id', storeId).first<{ currency: string } | undefined>('currency');
  return store?.currency ?? 'SAR';
}

function toView(row: Row, products: number[], currency: string): CouponView {
  return {
    id: Number(row.id),
    code: row.code,
    type: row.type,
    // A percentage is basis points ("10.00"); a fixed amount is money in the store's currency ("1.250" KWD).
    amount: formatMoney(Number(row.amount), row.type === 'fixed' ? currency : null),
    active: row.active,
    max_uses: row.max_uses,
    uses: Number(row.uses_count),
    reserved_uses: Number(row.reserved_uses),
    min_order: row.min_order_minor == null ? null : formatMoney(Number(row.min_order_minor), currency),
    products,
    payment_restrictions: row.payment_restrictions ?? [],
    starts_at: iso(row.starts_at),
    expires_at: iso(row.expires_at),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

async function productsOf(knex: Knex, couponIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (couponIds.length === 0) return out;
  const rows: { coupon_id: number; product_id: number }[] = await knex('coupon_products')
    .whereIn('coupon_id', couponIds)
    .orderBy(['coupon_id', 'product_id'])
    .select('coupon_id', 'product_id');
  for (const r of rows) {
    const list = out.get(Number(r.coupon_id)) ?? [];
    list.push(Number(r.product_id));
    out.set(Number(r.coupon_id), list);
  }
  return out;
}

export async function couponDetail(knex: Knex, storeId: number, id: number): Promise<CouponView> {
  const row = (await knex('coupons').where({ id, store_id: storeId }).first()) as Row | undefined;
  if (!row) throw new NotFoundError(COUPON_NOT_FOUND);
  return toView(row, (await productsOf(knex, [row.id])).get(row.id) ?? [], await currencyOf(knex, storeId));
}

export interface CouponFilters {
  active?: boolean;
  code?: string;
}

export async function listCoupons(
  knex: Knex,
  storeId: number,
  filters: CouponFilters,
  page: PageRequest,
): Promise<{ items: CouponView[]; meta: PageMeta }> {
  const base = knex('coupons').where('store_id', storeId).select('*');
  if (filters.active !== undefined) base.where('active', filters.active);
  if (filters.code) base.whereRaw('lower(code) = lower(?)', [filters.code]);
  const { rows, meta } = await paginate<Row>(base, page, (q) => q.orderBy('id', 'desc'));
  const products = await productsOf(
    knex,
    rows.map((r) => Number(r.id)),
  );
  const currency = await currencyOf(knex, storeId);
  return { items: rows.map((r) => toView(r, products.get(Number(r.id)) ?? [], currency)), meta };
}

const minor = (value: string, currency?: string | null): number => parseMoney(value, currency) ?? 0;

/**
 * The checks joi cannot make: the merged coupon's ranges, its amounts against the store currency's
 * decimals (ISO 4217; joi took any currency's form), and the store's own rows.
 */
async function checkCoupon(
  trx: Knex,
  storeId: number,
  coupon: CouponInput,
  couponId: number | null,
  usesSoFar: number,
  currency: string,
): Promise<void> {
  const errors: FieldErrors = {};
  if (coupon.type === 'fixed' && parseMoney(coupon.amount, currency) === null) {
    messagesOf(errors, 'amount').push(precisionMessage(currency));
  }
  if (coupon.min_order != null && parseMoney(coupon.min_order, currency) === null) {
    messagesOf(errors, 'min_order').push(precisionMessage(currency));
  }
  if (coupon.type === 'percentage' && minor(coupon.amount) > 10_000) {
    messagesOf(errors, 'amount').push('must be between 0 and 100 for a percentage coupon');
  }
  if (coupon.max_uses != null && coupon.max_uses < usesSoFar) {
    messagesOf(errors, 'max_uses').push(`must not be below the ${usesSoFar} uses so far`);
  }
  if (coupon.starts_at && coupon.expires_at && coupon.expires_at < coupon.starts_at) {
    messagesOf(errors, 'expires_at').push('must not be before starts_at');
  }
  const holder = await trx('coupons')
    .where('store_id', storeId)
    .whereRaw('lower(code) = lower(?)', [coupon.code])
    .modify((q) => (couponId === null ? q : q.whereNot('id', couponId)))
    .first('id');
  if (holder) messagesOf(errors, 'code').push(CODE_TAKEN);
  const ids = coupon.products;
  const known = new Set(
    (
      await trx('products')
        .where('store_id', storeId)
        .whereIn('id', ids.length > 0 ? ids : [0])
        .pluck('id')
    ).map(Number),
  );
  const seen = new Set<number>();
  ids.forEach((id, i) => {
    if (!known.has(id)) messagesOf(errors, `products.${i}`).push(`no product ${id} in this store`);
    else if (seen.has(id)) messagesOf(errors, `products.${i}`).push(`product ${id} is listed twice`);
    seen.add(id);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function columns(coupon: CouponInput, currency: string): Record<string, unknown> {
  return {
    code: coupon.code,
    type: coupon.type,
    amount: minor(coupon.amount, coupon.type === 'fixed' ? currency : null),
    active: coupon.active,
    max_uses: coupon.max_uses ?? null,
    min_order_minor: coupon.min_order == null ? null : minor(coupon.min_order, currency),
    payment_restrictions: coupon.payment_restrictions,
    starts_at: coupon.starts_at ?? null,
    expires_at: coupon.expires_at ?? null,
  };
}

async function writeProducts(trx: Knex, couponId: number, ids: number[]): Promise<void> {
  await trx('coupon_products').where('coupon_id', couponId).delete();
  if (ids.length > 0) {
    await trx('coupon_products').insert(ids.map((product_id) => ({ coupon_id: couponId, product_id })));
  }
}

const asCodeConflict = (err: unknown): unknown =>
  (err as { code?: string }).code === '23505' ? ValidationError.field('code', CODE_TAKEN) : err;

export async function createCoupon(
  knex: Knex,
  actor: Actor,
  storeId: number,
  input: CouponInput,
): Promise<CouponView> {
  const id = await knex
    .transaction(async (trx) => {
      const currency = await currencyOf(trx, storeId);
      await checkCoupon(trx, storeId, input, null, 0, currency);
      const [row] = await trx('coupons')
        .insert({ ...columns(input, currency), store_id: storeId })
        .returning('id');
      const couponId = Number((row as { id: number }).id);
      await writeProducts(trx, couponId, input.products);
      await recordAudit(trx, actor, 'coupon.created', { type: 'coupon', id: couponId }, { ...input });
      return couponId;
    })
    .catch((err: unknown) => {
      throw asCodeConflict(err);
    });
  return couponDetail(knex, storeId, id);
}

export async function updateCoupon(
  knex: Knex,
  actor: Actor,
  storeId: number,
  couponId: number,
  patch: CouponPatch,
): Promise<CouponView> {
  await knex
    .transaction(async (trx) => {
      const row = (await trx('coupons').where({ id: couponId, store_id: storeId }).forUpdate().first()) as
        Row | undefined;
      if (!row) throw new NotFoundError(COUPON_NOT_FOUND);
      const currency = await currencyOf(trx, storeId);
      const current = toView(row, (await productsOf(trx, [couponId])).get(couponId) ?? [], currency);
      const before: CouponInput = {
        code: current.code,
        type: current.type,
        amount: current.amount,
        active: current.active,
        max_uses: current.max_uses,
        min_order: current.min_order,
        products: current.products,
        payment_restrictions: current.payment_restrictions as CouponInput['payment_restrictions'],
        starts_at: row.starts_at,
        expires_at: row.expires_at,
      };
      const merged: CouponInput = { ...before, ...patch };
      await checkCoupon(trx, storeId, merged, couponId, Number(row.uses_count), currency);
      const changes = diff(
        before as unknown as Record<string, unknown>,
        merged as unknown as Record<string, unknown>,
      );
      if (Object.keys(changes).length === 0) return;
      await trx('coupons')
        .where('id', couponId)
        .update({ ...columns(merged, currency), updated_at: trx.fn.now() });
      if (patch.products) await writeProducts(trx, couponId, merged.products);
      await recordAudit(trx, actor, 'coupon.updated', { type: 'coupon', id: couponId }, changes);
    })
    .catch((err: unknown) => {
      throw asCodeConflict(err);
    });
  return couponDetail(knex, storeId, couponId);
}

/** Deletes an unused coupon; one with uses (or held by an unpaid checkout) is deactivated instead. */
export async function deleteCoupon(
  knex: Knex,
  actor: Actor,
  storeId: number,
  couponId: number,
): Promise<{ id: number; deleted: boolean; active: boolean }> {
  return knex.transaction(async (trx) => {
    const row = (await trx('coupons').where({ id: couponId, store_id: storeId }).forUpdate().first()) as
      Row | undefined;
    if (!row) throw new NotFoundError(COUPON_NOT_FOUND);
    const used =
      Number(row.uses_count) > 0 ||
      Number(row.reserved_uses) > 0 ||
      (await trx('coupon_uses').where('coupon_id', couponId).first('id')) !== undefined ||
      (await trx('checkouts').where('coupon_id', couponId).first('id')) !== undefined;
    if (used) {
      await trx('coupons').where('id', couponId).update({ active: false, updated_at: trx.fn.now() });
      await recordAudit(
        trx,
        actor,
        'coupon.deactivated',
        { type: 'coupon', id: couponId },
        {
          active: { from: row.active, to: false },
        },
      );
      return { id: couponId, deleted: false, active: false };
    }
    await trx('coupons').where('id', couponId).delete();
    await recordAudit(trx, actor, 'coupon.deleted', { type: 'coupon', id: couponId }, { code: row.code });
    return { id: couponId, deleted: true, active: false };
  });
}
