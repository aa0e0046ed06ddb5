import type { Knex } from 'knex';
import { Store, type CustomField } from '../../../db/models';
import { readStamp, type HotReadDeps } from '../../cache/versioned';
import { CATALOG_ALL, productCounter, storeCounter } from '../catalogue/cache';
import { cachedStore } from '../catalogue/store-cache';

/**
 * What the store pages show (docs/store-pages.md), read from this process's memory while nothing it shows
 * changed (the hot-read caches, docs/caching.md):
 *
 * - the store by its slug: `cachedStore` (counters `cat:v:all`, `cat:v:stores`; every writer of a store
 *   row bumps them, the slug included);
 * - the store's catalogue (its active products and categories, both languages): one entry per store,
 *   guarded by `cat:v:all` and `cat:v:s:<store>` (the merchant writers of products, prices, categories,
 *   images) AND by every listed product's `cat:v:p:<product>` (the stock writers), so a sale that empties a
 *   product's stock shows "sold out" at the next read, and a busy store's other changes cost nothing.
 *   The stock counters are read after the catalogue and before the stock itself, so a stock change
 *   committed at any point is either in what is kept or makes its stamp stale.
 * - published reviews: kept `CACHE_TTL_MS` (5 s) per product (no writer bumps for them; a new review
 *   shows within seconds).
 */

export interface PageCategory {
  id: number;
  slug: string;
  name: string;
  name_ar: string | null;
  description: string | null;
  description_ar: string | null;
}

export interface PageProduct {
  id: number;
  slug: string;
  type: string;
  name: string;
  name_ar: string | null;
  description: string | null;
  description_ar: string | null;
  price_minor: number;
  sale_price_minor: number | null;
  image_url: string | null;
  fields: CustomField[];
  category_ids: number[];
  /** Units that can still be sold (available keys of a code product); null: unlimited. */
  stock: number | null;
  updated_at: string;
}

export interface StoreCatalogue {
  products: readonly PageProduct[];
  categories: readonly PageCategory[];
  /** When anything listed last changed: the pages' Last-Modified and part of their ETag. */
  stamp: string;
}

export type StorePagesDeps = HotReadDeps & { knex: Knex };

/** The store whose page address is `slug`, or undefined. */
export async function storeBySlug(deps: StorePagesDeps, slug: string): Promise<Store | undefined> {
  if (!/^[a-z0-9-]{1,63}$/.test(slug)) return undefined;
  return cachedStore(deps, `slug:${slug}`, (knex) => Store.query(knex).findOne({ slug }));
}

interface Entry {
  catalogue: Omit<StoreCatalogue, 'stamp'>;
  stockStamp: string;
}

/** Active products of the store, newest position first, with their category ids. */
async function readCatalogue(knex: Knex, storeId: number): Promise<Omit<StoreCatalogue, 'stamp'>> {
  const [rows, categories, links] = await Promise.all([
    knex('products')
      .where({ store_id: storeId, active: true })
      .whereNull('archived_at')
      .orderBy('id', 'desc')
      .select(
        'id',
        'slug',
        'type',
        'name',
        'name_ar',
        'description',
        'description_ar',
        'price_minor',
        'sale_price_minor',
        'image_url',
        'fields',
        'updated_at',
      ),
    knex('categories')
      .where('store_id', storeId)
      .orderBy([{ column: 'position' }, { column: 'id' }])
      .select('id', 'slug', 'name', 'name_ar', 'description', 'description_ar'),
    knex('product_categories as pc')
      .join('categories as c', 'c.id', 'pc.category_id')
      .where('c.store_id', storeId)
      .select('pc.product_id', 'pc.category_id'),
  ]);
  const byProduct = new Map<number, number[]>();
  for (const link of links as { product_id: number; category_id: number }[]) {
    const list = byProduct.get(link.product_id) ?? [];
    list.push(link.category_id);
    byProduct.set(link.product_id, list);
  }
  const products = (rows as Record<string, unknown>[]).map((r): PageProduct => ({
    id: Number(r.id),
    slug: String(r.slug),
    type: String(r.type),
    name: String(r.name),
    name_ar: (r.name_ar as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    description_ar: (r.description_ar as string | null) ?? null,
    price_minor: Number(r.price_minor),
    sale_price_minor: r.sale_price_minor === null ? null : Number(r.sale_price_minor),
    image_url: (r.image_url as string | null) ?? null,
    fields: Array.isArray(r.fields) ? (r.fields as CustomField[]) : [],
    category_ids: byProduct.get(Number(r.id)) ?? [],
    stock: null,
    updated_at: new Date(r.updated_at as Date).toISOString(),
  }));
  return { products, categories: categories as PageCategory[] };
}

/** The units left of each product: available keys of code products, the stock column of the others. */
async function readStock(knex: Knex, storeId: number, ids: number[]): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  if (ids.length === 0) return out;
  const rows = (await knex('products as p')
    .where('p.store_id', storeId)
    .whereIn('p.id', ids)
    .select(
      'p.id',
      knex.raw(
        `case when p.type = 'code' then (select count(*)::int from product_codes c
           where c.product_id = p.id and c.status = 'available') else p.stock end as units`,
      ),
    )) as { id: number; units: number | null }[];
  for (const row of rows) out.set(Number(row.id), row.units === null ? null : Number(row.units));
  return out;
}

/** The store's catalogue, from memory while nothing in it changed (see above). Frozen: never write to it. */
export async function storeCatalogue(deps: StorePagesDeps, storeId: number): Promise<StoreCatalogue> {
  const cache = deps.caches.of<Entry>('store-pages');
  const key = String(storeId);
  const stamp = await readStamp(deps, [CATALOG_ALL, storeCounter(storeId)]).catch(() => null);
  if (stamp !== null) {
    const entry = cache.get(key, stamp);
    if (entry) {
      const counters = entry.catalogue.products.map((p) => productCounter(p.id));
      const stockStamp = await readStamp(deps, counters).catch(() => null);
      if (stockStamp === entry.stockStamp) return { ...entry.catalogue, stamp: `${stamp}:${stockStamp}` };
    }
  }
  const read = async (): Promise<Entry> => {
    const catalogue = await readCatalogue(deps.knex, storeId);
    const ids = catalogue.products.map((p) => p.id);
    const stockStamp =
      stamp === null ? '' : await readStamp(deps, ids.map(productCounter)).catch(() => 'none');
    const stock = await readStock(deps.knex, storeId, ids);
    const products = catalogue.products.map((p) => Object.freeze({ ...p, stock: stock.get(p.id) ?? null }));
    return { catalogue: Object.freeze({ products, categories: catalogue.categories }), stockStamp };
  };
  const entry = stamp === null ? await read() : await deps.caches.once(`store-pages|${key}|${stamp}`, read);
  if (stamp !== null && entry.stockStamp !== 'none') cache.set(key, stamp, entry);
  return { ...entry.catalogue, stamp: `${stamp ?? 'x'}:${entry.stockStamp}` };
}

export interface PageReview {
  id: number;
  rating: number;
  comment: string | null;
  author: string;
  verified: boolean;
  created_at: string;
}

/**
 * A product's published reviews, newest first (at most 50), and their count and average. "Verified
 * purchase": the review is tied to an order, or its author has a paid order with this product.
 */
export async function productReviews(
  deps: StorePagesDeps,
  storeId: number,
  productId: number,
): Promise<{ reviews: PageReview[]; count: number; average: number | null }> {
  const cache = deps.caches.of<{ reviews: PageReview[]; count: number; average: number | null }>(
    'store-page-reviews',
  );
  const key = `${storeId}|${productId}`;
  const hit = cache.get(key, 'ttl');
  if (hit) return hit;
  const { knex } = deps;
  const rows = (await knex('reviews as r')
    .leftJoin('customers as c', 'c.id', 'r.customer_id')
    .where({ 'r.store_id': storeId, 'r.product_id': productId, 'r.published': true })
    .orderBy('r.created_at', 'desc')
    .limit(50)
    .select(
      'r.id',
      'r.rating',
      'r.comment',
      'r.created_at',
      'c.first_name',
      'c.last_name',
      knex.raw(
        `(r.order_id is not null or exists (
            select 1 from orders o join order_items oi on oi.order_id = o.id
             where o.store_id = r.store_id and o.customer_id = r.customer_id and r.customer_id is not null
               and oi.product_id = r.product_id and o.status in (2, 3, 4))) as verified`,
      ),
    )) as Record<string, unknown>[];
  const stats = (await knex('reviews')
    .where({ store_id: storeId, product_id: productId, published: true })
    .first(knex.raw('count(*)::int as count'), knex.raw('avg(rating)::float as average'))) as {
    count: number;
    average: number | null;
  };
  const value = {
    reviews: rows.map((r) => ({
      id: Number(r.id),
      rating: Number(r.rating),
      comment: (r.comment as string | null) ?? null,
      author: [r.first_name, typeof r.last_name === 'string' ? `${r.last_name.slice(0, 1)}.` : '']
        .filter((s) => typeof s === 'string' && s)
        .join(' '),
      verified: Boolean(r.verified),
      created_at: new Date(r.created_at as Date).toISOString(),
    })),
    count: Number(stats.count),
    average: stats.average === null ? null : Math.round(Number(stats.average) * 10) / 10,
  };
  cache.set(key, 'ttl', value);
  return value;
}

/** Case-insensitive match of `query` in either name or description, in the listed order. */
export function searchProducts(products: readonly PageProduct[], query: string): PageProduct[] {
  const needle = query.trim().toLocaleLowerCase();
  if (!needle) return [];
  return products.filter((p) =>
    [p.name, p.name_ar, p.description, p.description_ar].some(
      (text) => typeof text === 'string' && text.toLocaleLowerCase().includes(needle),
    ),
  );
}
