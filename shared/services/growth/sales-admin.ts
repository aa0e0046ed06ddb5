import type { Knex } from 'knex';
import { FieldErrors, NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney, precisionMessage } from '../../money';
import type { TxDeps } from '../../unit-of-work';
import { noteStoreContentChangedOn } from '../catalogue/cache';
import { type Actor, recordAudit } from '../audit';

/**
 * Timed sales written by the merchant (Merchant API, dashboard): docs/growth.md, "Timed sales". Every
 * write bumps the store's catalogue counter after its commit, so cached product answers show the change
 * at the next read; a sale's own start and end need no write (the caches end at the next boundary).
 */

export const SALE_NOT_FOUND = 'Sale not found';

export interface SaleInput {
  name: string;
  percent?: number | string | null;
  amount?: string | null;
  products?: number[];
  categories?: number[];
  starts_at: string | Date;
  ends_at: string | Date;
  stackable?: boolean;
}
export type SalePatch = Partial<SaleInput>;

export interface SaleView {
  id: number;
  name: string;
  percent: string | null;
  amount: string | null;
  products: number[];
  categories: number[];
  starts_at: string;
  ends_at: string;
  stackable: boolean;
  /** `scheduled`, `running` or `ended` at the time of the answer. */
  state: 'scheduled' | 'running' | 'ended';
  created_at: string;
  updated_at: string;
}

interface Row {
  id: number;
  store_id: number;
  name: string;
  percent_bp: number | null;
  amount_minor: string | number | null;
  product_ids: number[];
  category_ids: number[];
  starts_at: Date;
  ends_at: Date;
  stackable: boolean;
  created_at: Date;
  updated_at: Date;
}

export function saleView(row: Row, currency: string, now = new Date()): SaleView {
  const starts = new Date(row.starts_at);
  const ends = new Date(row.ends_at);
  return {
    id: Number(row.id),
    name: row.name,
    percent: row.percent_bp === null ? null : formatMoney(Number(row.percent_bp), null),
    amount: row.amount_minor === null ? null : formatMoney(Number(row.amount_minor), currency),
    products: (row.product_ids ?? []).map(Number),
    categories: (row.category_ids ?? []).map(Number),
    starts_at: starts.toISOString(),
    ends_at: ends.toISOString(),
    stackable: row.stackable,
    state: now < starts ? 'scheduled' : now < ends ? 'running' : 'ended',
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

async function currencyOf(knex: Knex, storeId: number): Promise<string> {
  const store = await knex('stores').where('id', storeId).first<{ currency: string } | undefined>('currency');
  return store?.currency ?? 'SAR';
}

async function findRow(knex: Knex, storeId: number, id: number): Promise<Row> {
  const row = (await knex('sales').where({ id, store_id: storeId }).whereNull('deleted_at').first()) as
    Row | undefined;
  if (!row) throw new NotFoundError(SALE_NOT_FOUND);
  return row;
}

export async function listSales(
  knex: Knex,
  storeId: number,
  filter: { state?: SaleView['state'] } = {},
): Promise<SaleView[]> {
  const now = new Date();
  const q = knex('sales').where('store_id', storeId).whereNull('deleted_at');
  if (filter.state === 'scheduled') q.where('starts_at', '>', now);
  if (filter.state === 'running') q.where('starts_at', '<=', now).where('ends_at', '>', now);
  if (filter.state === 'ended') q.where('ends_at', '<=', now);
  const rows = (await q
    .orderBy([
      { column: 'starts_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(500)) as Row[];
  const currency = await currencyOf(knex, storeId);
  return rows.map((r) => saleView(r, currency, now));
}

export async function saleDetail(knex: Knex, storeId: number, id: number): Promise<SaleView> {
  return saleView(await findRow(knex, storeId, id), await currencyOf(knex, storeId));
}

interface Columns {
  name: string;
  percent_bp: number | null;
  amount_minor: number | null;
  product_ids: number[];
  category_ids: number[];
  starts_at: Date;
  ends_at: Date;
  stackable: boolean;
}

/** The merged sale's checks joi cannot make: one kind of discount, the window, the store's own ids. */
async function columnsOf(trx: Knex, storeId: number, input: SaleInput, currency: string): Promise<Columns> {
  const errors: FieldErrors = {};
  const hasPercent = input.percent !== undefined && input.percent !== null;
  const hasAmount = input.amount !== undefined && input.amount !== null;
  let percentBp: number | null = null;
  let amountMinor: number | null = null;
  if (hasPercent === hasAmount) {
    errors[hasPercent ? 'amount' : 'percent'] = ['give either percent or amount: one of them, not both'];
  } else if (hasPercent) {
    percentBp = parseMoney(String(input.percent), null);
    if (percentBp === null || percentBp <= 0 || percentBp > 10_000)
      errors.percent = ['must be a percentage above 0 and at most 100, with at most 2 decimals'];
  } else {
    amountMinor = parseMoney(String(input.amount), currency);
    if (amountMinor === null) errors.amount = [precisionMessage(currency)];
    else if (amountMinor <= 0) errors.amount = ['must be above 0'];
  }
  const products = [...new Set(input.products ?? [])];
  const categories = [...new Set(input.categories ?? [])];
  if (products.length === 0 && categories.length === 0)
    errors.products = ['name at least one product or category'];
  if (products.length > 0) {
    const found: number[] = await trx('products')
      .where('store_id', storeId)
      .whereIn('id', products)
      .pluck('id');
    const missing = products.filter((p) => !found.map(Number).includes(p));
    if (missing.length > 0) errors.products = [`not products of this store: ${missing.join(', ')}`];
  }
  if (categories.length > 0) {
    const found: number[] = await trx('categories')
      .where('store_id', storeId)
      .whereIn('id', categories)
      .pluck('id');
    const missing = categories.filter((c) => !found.map(Number).includes(c));
    if (missing.length > 0) errors.categories = [`not categories of this store: ${missing.join(', ')}`];
  }
  const starts = new Date(input.starts_at);
  const ends = new Date(input.ends_at);
  if (!(ends.getTime() > starts.getTime())) errors.ends_at = ['must be after starts_at'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    name: input.name.trim(),
    percent_bp: percentBp,
    amount_minor: amountMinor,
    product_ids: products,
    category_ids: categories,
    starts_at: starts,
    ends_at: ends,
    stackable: input.stackable ?? false,
  };
}

function inputOf(row: Row, currency: string): SaleInput {
  return {
    name: row.name,
    percent: row.percent_bp === null ? null : formatMoney(Number(row.percent_bp), null),
    amount: row.amount_minor === null ? null : formatMoney(Number(row.amount_minor), currency),
    products: (row.product_ids ?? []).map(Number),
    categories: (row.category_ids ?? []).map(Number),
    starts_at: new Date(row.starts_at),
    ends_at: new Date(row.ends_at),
    stackable: row.stackable,
  };
}

export async function createSale(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  storeId: number,
  input: SaleInput,
): Promise<SaleView> {
  const currency = await currencyOf(deps.knex, storeId);
  const id = await deps.tx(async (uow) => {
    const columns = await columnsOf(uow.trx, storeId, input, currency);
    const [row] = await uow
      .trx('sales')
      .insert({ ...columns, store_id: storeId })
      .returning('id');
    const saleId = Number((row as { id: number }).id);
    await recordAudit(uow.trx, actor, 'sale.created', { type: 'sale', id: saleId }, { ...input });
    noteStoreContentChangedOn(uow, storeId);
    return saleId;
  });
  return saleDetail(deps.knex, storeId, id);
}

export async function updateSale(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  storeId: number,
  id: number,
  patch: SalePatch,
): Promise<SaleView> {
  const currency = await currencyOf(deps.knex, storeId);
  await deps.tx(async (uow) => {
    const row = (await uow
      .trx('sales')
      .where({ id, store_id: storeId })
      .whereNull('deleted_at')
      .forUpdate()
      .first()) as Row | undefined;
    if (!row) throw new NotFoundError(SALE_NOT_FOUND);
    const merged: SaleInput = { ...inputOf(row, currency), ...patch };
    // Naming one kind of discount replaces the other.
    if (patch.percent !== undefined && patch.percent !== null && patch.amount === undefined)
      merged.amount = null;
    if (patch.amount !== undefined && patch.amount !== null && patch.percent === undefined)
      merged.percent = null;
    const columns = await columnsOf(uow.trx, storeId, merged, currency);
    await uow
      .trx('sales')
      .where('id', id)
      .update({ ...columns, updated_at: new Date() });
    await recordAudit(uow.trx, actor, 'sale.updated', { type: 'sale', id }, { ...patch });
    noteStoreContentChangedOn(uow, storeId);
  });
  return saleDetail(deps.knex, storeId, id);
}

/** Ends the sale at once: prices are the usual ones from the next read. */
export async function deleteSale(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  storeId: number,
  id: number,
): Promise<{ id: number; deleted: true }> {
  await deps.tx(async (uow) => {
    const n = await uow
      .trx('sales')
      .where({ id, store_id: storeId })
      .whereNull('deleted_at')
      .update({ deleted_at: new Date(), updated_at: new Date() });
    if (n === 0) throw new NotFoundError(SALE_NOT_FOUND);
    await recordAudit(uow.trx, actor, 'sale.deleted', { type: 'sale', id });
    noteStoreContentChangedOn(uow, storeId);
  });
  return { id, deleted: true };
}

/** What a sale may name, for the dashboard's form: the store's products (not archived) and categories. */
export async function saleChoices(
  knex: Knex,
  storeId: number,
): Promise<{ products: { id: number; name: string }[]; categories: { id: number; name: string }[] }> {
  const [products, categories] = await Promise.all([
    knex('products')
      .where('store_id', storeId)
      .whereNull('archived_at')
      .orderBy('id')
      .limit(500)
      .select('id', 'name'),
    knex('categories').where('store_id', storeId).orderBy(['position', 'id']).limit(200).select('id', 'name'),
  ]);
  return {
    products: products.map((p: { id: number; name: string }) => ({ id: Number(p.id), name: p.name })),
    categories: categories.map((c: { id: number; name: string }) => ({ id: Number(c.id), name: c.name })),
  };
}
