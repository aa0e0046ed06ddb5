import type { Knex } from 'knex';
import type { ProductType } from '../../../db/models';
import { randomToken } from '../../crypto';
import { NotFoundError } from '../../errors';
import { parseMoney } from '../../money';
import { noteStockChanged, storeCounter } from '../catalog/cache';
import { bumpAfterCommit } from '../../cache/versioned';
import { paginate, PageMeta } from '../merchant/pagination';

/**
 * The dashboard's product form: the smallest create and update the form needs (name, type, price, sale
 * price, stock, description, active, and key stock for code products). Every write bumps the store's
 * catalogue counter after commit, so the Embed and Storefront APIs show the change at once.
 */

export const FORM_TYPES: readonly ProductType[] = ['product', 'code', 'service'];

export interface ProductRow {
  id: number;
  store_id: number;
  name: string;
  slug: string;
  description: string | null;
  type: ProductType;
  price_minor: number;
  sale_price_minor: number | null;
  active: boolean;
  stock: number | null;
  created_at: Date;
  available_codes?: number;
}

/** What the form sends, as typed: strings, checked here field by field. */
export interface ProductForm {
  name: string;
  type: string;
  price: string;
  sale_price: string;
  stock: string;
  description: string;
  active: boolean;
  codes: string;
}

export interface ProductInput {
  name: string;
  type: ProductType;
  price_minor: number;
  sale_price_minor: number | null;
  stock: number | null;
  description: string | null;
  active: boolean;
  codes: string[];
}

/** Field errors keyed by form field; each value a message key of the dashboard's message files. */
export type FormErrors = Partial<Record<keyof ProductForm, string>>;

export const MAX_CODES_PER_SAVE = 5_000;

/** Checks the form; returns the input, or the errors of every bad field at once. */
export function readProductForm(
  form: ProductForm,
): { ok: true; input: ProductInput } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  const name = form.name.trim();
  if (!name) errors.name = 'required';
  else if (name.length > 200) errors.name = 'tooLong';
  const type = (FORM_TYPES as readonly string[]).includes(form.type) ? (form.type as ProductType) : null;
  if (!type) errors.type = 'badType';
  const price = parseMoney(form.price.trim());
  if (!form.price.trim()) errors.price = 'required';
  else if (price === null) errors.price = 'badMoney';
  let sale: number | null = null;
  if (form.sale_price.trim()) {
    sale = parseMoney(form.sale_price.trim());
    if (sale === null) errors.sale_price = 'badMoney';
    else if (price !== null && sale >= price) errors.sale_price = 'saleBelowPrice';
  }
  let stock: number | null = null;
  if (form.stock.trim()) {
    stock = /^\d{1,9}$/.test(form.stock.trim()) ? Number(form.stock.trim()) : null;
    if (stock === null) errors.stock = 'badStock';
  }
  const description = form.description.trim();
  if (description.length > 10_000) errors.description = 'tooLong';
  const codes = [
    ...new Set(
      form.codes
        .split(/\r?\n|,/)
        .map((c) => c.trim())
        .filter(Boolean),
    ),
  ];
  if (codes.length > MAX_CODES_PER_SAVE || codes.some((c) => c.length > 500)) errors.codes = 'tooManyCodes';
  if (Object.keys(errors).length > 0 || !type || price === null) return { ok: false, errors };
  return {
    ok: true,
    input: {
      name,
      type,
      price_minor: price,
      sale_price_minor: sale,
      stock: type === 'code' ? null : stock,
      description: description || null,
      active: form.active,
      codes: type === 'code' ? codes : [],
    },
  };
}

function slugOf(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return base || 'product';
}

async function addCodes(trx: Knex, productId: number, codes: string[]): Promise<number> {
  if (codes.length === 0) return 0;
  let added = 0;
  for (let i = 0; i < codes.length; i += 1_000) {
    const rows = await trx('product_codes')
      .insert(codes.slice(i, i + 1_000).map((code) => ({ product_id: productId, code })))
      .onConflict(['product_id', 'code'])
      .ignore()
      .returning('id');
    added += rows.length;
  }
  return added;
}

export async function createProduct(
  knex: Knex,
  storeId: number,
  input: ProductInput,
): Promise<{ id: number; codesAdded: number }> {
  return knex.transaction(async (trx) => {
    const base = slugOf(input.name);
    const taken = await trx('products').where({ store_id: storeId, slug: base }).first('id');
    const slug = taken
      ? `${base}-${randomToken(4)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, 'x')}`
      : base;
    const [row] = await trx('products')
      .insert({
        store_id: storeId,
        name: input.name,
        slug,
        description: input.description,
        type: input.type,
        price_minor: input.price_minor,
        sale_price_minor: input.sale_price_minor,
        active: input.active,
        stock: input.stock,
      })
      .returning('id');
    const id = (row as { id: number }).id;
    const codesAdded = await addCodes(trx, id, input.codes);
    void bumpAfterCommit(trx, [storeCounter(storeId)]);
    return { id, codesAdded };
  });
}

export async function updateProduct(
  knex: Knex,
  storeId: number,
  productId: number,
  input: ProductInput,
): Promise<{ codesAdded: number }> {
  return knex.transaction(async (trx) => {
    const current = await trx('products').where({ id: productId, store_id: storeId }).forUpdate().first('id');
    if (!current) throw new NotFoundError('Product not found');
    await trx('products').where({ id: productId }).update({
      name: input.name,
      description: input.description,
      type: input.type,
      price_minor: input.price_minor,
      sale_price_minor: input.sale_price_minor,
      active: input.active,
      stock: input.stock,
      updated_at: new Date(),
    });
    const codesAdded = await addCodes(trx, productId, input.codes);
    void bumpAfterCommit(trx, [storeCounter(storeId)]);
    void noteStockChanged(trx, [productId]);
    return { codesAdded };
  });
}

export async function findProduct(knex: Knex, storeId: number, productId: number): Promise<ProductRow> {
  const row = await knex('products').where({ id: productId, store_id: storeId }).first();
  if (!row) throw new NotFoundError('Product not found');
  const [codes] = await knex('product_codes')
    .where({ product_id: productId, status: 'available' })
    .count<{ n: string }[]>('* as n');
  return { ...normalize(row), available_codes: Number(codes?.n ?? 0) };
}

function normalize(row: Record<string, unknown>): ProductRow {
  return {
    ...(row as unknown as ProductRow),
    price_minor: Number(row.price_minor),
    sale_price_minor: row.sale_price_minor === null ? null : Number(row.sale_price_minor),
  };
}

export async function listProducts(
  knex: Knex,
  storeId: number,
  page: number,
  perPage = 20,
): Promise<{ items: ProductRow[]; meta: PageMeta }> {
  const base = knex('products').where('store_id', storeId).select('products.*');
  const { rows, meta } = await paginate<Record<string, unknown>>(base, { page, per_page: perPage }, (q) =>
    q.orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]),
  );
  return { items: rows.map(normalize), meta };
}
