import { withTimedSales } from '../pricing/sales';
import type { Knex } from 'knex';
import { licenseSettingsForMerchant } from '../licenses';
import type { ProductSettingsDeps } from '../licenses/product-settings';
import type { CustomField } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { formatMoney } from '../../money';
import { paginate, PageMeta, PageRequest } from '../../pagination';
import { pageMeta } from '../../views';

/** Products and categories as the merchant sees them: stock, sales, everything configured. */

export const PRODUCT_NOT_FOUND = 'Product not found';

export interface ProductFilters {
  type?: string;
  active?: boolean;
  category_id?: number;
}

interface ProductRow {
  id: number;
  name: string;
  name_ar: string | null;
  description_ar: string | null;
  slug: string;
  description: string | null;
  type: string;
  price_minor: number;
  sale_price_minor: number | null;
  active: boolean;
  stock: number | null;
  max_per_order: number;
  download_limit: number;
  image_url: string | null;
  fields: unknown;
  license_enabled: boolean;
  license_prefix: string | null;
  license_lock_type: string | null;
  license_max_activations: number;
  license_encrypt: boolean;
  version: number;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  keys_left: number | null;
  units_sold: number;
}

/** The product columns plus keys left (code products) and units sold in paid orders. */
function productQuery(knex: Knex, storeId: number): Knex.QueryBuilder {
  return knex('products as p')
    .where('p.store_id', storeId)
    .select(
      'p.*',
      knex.raw(
        `case when p.type = 'code' then (select count(*)::int from product_codes c where c.product_id = p.id and c.status = 'available') end as keys_left`,
      ),
      // From the order rollups (rollups.ts: paid orders' units per product, folded and pending), not a
      // sum over the product's order items: a product with 100,000 sales cost 70-110 ms a read.
      knex.raw(
        `(select coalesce(sum(s.quantity), 0)::int from (
            select quantity from product_sales where store_id = p.store_id and product_id = p.id
            union all
            select quantity from product_sales_deltas where store_id = p.store_id and product_id = p.id
          ) s) as units_sold`,
      ),
    );
}

async function categoriesOf(knex: Knex, productIds: number[]) {
  if (productIds.length === 0) return new Map<number, { id: number; name: string; slug: string }[]>();
  const rows = await knex('product_categories as pc')
    .join('categories as c', 'c.id', 'pc.category_id')
    .whereIn('pc.product_id', productIds)
    .orderBy(['c.position', 'c.id'])
    .select('pc.product_id', 'c.id', 'c.name', 'c.slug');
  const out = new Map<number, { id: number; name: string; slug: string }[]>();
  for (const r of rows) {
    const list = out.get(Number(r.product_id)) ?? [];
    list.push({ id: Number(r.id), name: r.name, slug: r.slug });
    out.set(Number(r.product_id), list);
  }
  return out;
}

function summaryOf(
  p: ProductRow,
  currency: string,
  categories: { id: number; name: string; slug: string }[],
) {
  const quantity = p.type === 'code' ? Number(p.keys_left ?? 0) : p.stock;
  return {
    id: p.id,
    name: p.name,
    name_ar: p.name_ar,
    slug: p.slug,
    type: p.type,
    active: p.active,
    price: {
      original: formatMoney(Number(p.price_minor), currency),
      actual: formatMoney(Number(p.sale_price_minor ?? p.price_minor), currency),
      currency,
    },
    stock: { unlimited: quantity === null, quantity, is_in_stock: quantity === null || quantity > 0 },
    sales_count: Number(p.units_sold),
    categories,
    image_url: p.image_url,
    created_at: new Date(p.created_at).toISOString(),
  };
}

export async function listProducts(
  knex: Knex,
  store: { id: number; currency: string },
  filters: ProductFilters,
  page: PageRequest,
): Promise<{ items: ReturnType<typeof summaryOf>[]; meta: PageMeta }> {
  // Products taken off sale with DELETE are gone from the list (their orders still show them).
  const base = productQuery(knex, store.id).whereNull('p.archived_at');
  if (filters.type) base.where('p.type', filters.type);
  if (filters.active !== undefined) base.where('p.active', filters.active);
  if (filters.category_id !== undefined) {
    base.whereExists(
      knex('product_categories as pc')
        .select(knex.raw('1'))
        .whereRaw('pc.product_id = p.id')
        .where('pc.category_id', filters.category_id),
    );
  }
  const count = knex('products as p').where('p.store_id', store.id).whereNull('p.archived_at');
  if (filters.type) count.where('p.type', filters.type);
  if (filters.active !== undefined) count.where('p.active', filters.active);
  if (filters.category_id !== undefined) {
    count.whereExists(
      knex('product_categories as pc')
        .select(knex.raw('1'))
        .whereRaw('pc.product_id = p.id')
        .where('pc.category_id', filters.category_id),
    );
  }
  const [{ n }] = await count.count<{ n: number }[]>('* as n');
  const total = Number(n);
  const rows = (await base
    .orderBy('p.id')
    .limit(page.per_page)
    .offset((page.page - 1) * page.per_page)) as ProductRow[];
  const cats = await categoriesOf(
    knex,
    rows.map((r) => r.id),
  );
  await withTimedSales(knex, store.id, rows);
  return {
    items: rows.map((r) => summaryOf(r, store.currency, cats.get(r.id) ?? [])),
    meta: pageMeta(page, total),
  };
}

export async function productDetail(
  deps: ProductSettingsDeps,
  store: { id: number; currency: string },
  productId: number,
): Promise<Record<string, unknown>> {
  const { knex } = deps;
  const row = (await productQuery(knex, store.id).where('p.id', productId).first()) as ProductRow | undefined;
  if (!row) throw new NotFoundError(PRODUCT_NOT_FOUND);
  await withTimedSales(knex, store.id, [row]);
  const [cats, plans, commands] = await Promise.all([
    categoriesOf(knex, [row.id]),
    knex('product_plans').where('product_id', row.id).orderBy(['position', 'id']),
    knex('product_fivem_commands').where('product_id', row.id).orderBy(['position', 'id']),
  ]);
  const fields = Array.isArray(row.fields) ? (row.fields as CustomField[]) : [];
  return {
    ...summaryOf(row, store.currency, cats.get(row.id) ?? []),
    description: row.description,
    description_ar: row.description_ar,
    max_per_order: Number(row.max_per_order),
    download_limit: Number(row.download_limit),
    keys_left: row.type === 'code' ? Number(row.keys_left ?? 0) : null,
    fields: fields.map((f, index) => ({
      index,
      type: f.type,
      label: f.label,
      label_ar: f.label_ar ?? null,
      required: f.required,
      options: (f.options ?? []).map((o, i) => ({
        index: i,
        label: o.label,
        label_ar: o.label_ar ?? null,
        price: formatMoney(o.price_minor, store.currency),
      })),
    })),
    plans: plans.map((p) => ({
      id: p.id,
      name: p.name,
      price: formatMoney(Number(p.price_minor), store.currency),
      duration: p.duration,
      active: p.active,
    })),
    // The license service's view, with the per-product encryption key the merchant's software decrypts with.
    license: await licenseSettingsForMerchant(deps, store.id, row.id),
    fivem_commands: commands.map((c) => ({
      id: c.id,
      command: c.command,
      require_online: c.require_online,
      run_on: c.run_on,
      delay_seconds: c.delay_seconds,
      inventory_slots: c.inventory_slots,
    })),
    codes: await codeCounts(knex, row.id),
    version: Number(row.version),
    archived_at: row.archived_at ? new Date(row.archived_at).toISOString() : null,
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** A code product's key stock by state: never the sold keys themselves. */
export async function codeCounts(
  knex: Knex,
  productId: number,
): Promise<{ available: number; reserved: number; sold: number }> {
  const rows: { status: string; n: number }[] = await knex('product_codes')
    .where('product_id', productId)
    .groupBy('status')
    .select('status', knex.raw('count(*)::int as n'));
  const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { available: count('available'), reserved: count('reserved'), sold: count('sold') };
}

export async function listCategories(
  knex: Knex,
  storeId: number,
  page: PageRequest,
): Promise<{ items: Record<string, unknown>[]; meta: PageMeta }> {
  const base = knex('categories as c')
    .where('c.store_id', storeId)
    .select(
      'c.id',
      'c.name',
      'c.name_ar',
      'c.description',
      'c.description_ar',
      'c.slug',
      'c.position',
      'c.created_at',
      knex.raw(
        '(select count(*)::int from product_categories pc where pc.category_id = c.id) as product_count',
      ),
    );
  const { rows, meta } = await paginate<Record<string, unknown>>(base, page, (q) =>
    q.orderBy([{ column: 'c.position' }, { column: 'c.id' }]),
  );
  return {
    items: rows.map((r) => ({
      id: r.id,
      name: r.name,
      name_ar: r.name_ar ?? null,
      description: r.description ?? null,
      description_ar: r.description_ar ?? null,
      slug: r.slug,
      position: r.position,
      product_count: Number(r.product_count),
      created_at: new Date(r.created_at as Date).toISOString(),
    })),
    meta,
  };
}
