import type { Knex } from 'knex';
import { Product, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { pageMeta, type PageMeta } from '../../views';
import { parseProductId, priceView, PriceView, productView, ProductView } from './index';
import type { MethodOffer } from '../payment-methods';
import { withTimedSales } from '../pricing/sales';

/**
 * The Storefront's products: the product object of the spec ("Product (as embedded in wishlist
 * results)") for lists and the wishlist, and the full product (plus fields, plans, payment methods) for
 * GET /api/products/{id or slug}. Only a store's active products are ever shown.
 */

export interface ProductCard {
  id: number;
  name: string;
  slug: string;
  type: Product['type'];
  price: PriceView;
  stock: { is_in_stock: boolean };
  /** Spec: a string; empty when the product has no image. */
  image: { url: string };
  categories: { id: number; name: string; slug: string }[];
}

/** The product objects of `products` (any order kept), with categories and key stock read in two queries. */
export async function productCards(
  knex: Knex,
  store: Pick<Store, 'currency'>,
  products: readonly Product[],
  /** The reader's language: Arabic readers get `name_ar` where set (docs/store-pages.md). */
  locale: 'ar' | 'en' = 'en',
): Promise<ProductCard[]> {
  if (products.length === 0) return [];
  const ids = products.map((p) => p.id);
  await withTimedSales(knex, products[0]!.store_id, products);
  const codeIds = products.filter((p) => p.type === 'code').map((p) => p.id);
  const [categoryRows, codeRows] = await Promise.all([
    knex('product_categories as pc')
      .join('categories as c', 'c.id', 'pc.category_id')
      .whereIn('pc.product_id', ids)
      .orderBy([{ column: 'c.position' }, { column: 'c.id' }])
      .select<{ product_id: number; id: number; name: string; slug: string }[]>(
        'pc.product_id',
        'c.id',
        'c.name',
        'c.slug',
      ),
    codeIds.length === 0
      ? Promise.resolve([] as { product_id: number; count: number }[])
      : knex('product_codes')
          .whereIn('product_id', codeIds)
          .andWhere('status', 'available')
          .groupBy('product_id')
          .select<{ product_id: number; count: number }[]>('product_id', knex.raw('count(*)::int as count')),
  ]);
  const categories = new Map<number, ProductCard['categories']>();
  for (const row of categoryRows) {
    const list = categories.get(row.product_id) ?? [];
    list.push({ id: row.id, name: row.name, slug: row.slug });
    categories.set(row.product_id, list);
  }
  const keys = new Map(codeRows.map((r) => [r.product_id, Number(r.count)]));
  return products.map((p) => {
    const units = p.type === 'code' ? (keys.get(p.id) ?? 0) : p.stock;
    return {
      id: p.id,
      name: locale === 'ar' && p.name_ar ? p.name_ar : p.name,
      slug: p.slug,
      type: p.type,
      price: priceView(p, store.currency),
      stock: { is_in_stock: units === null || units > 0 },
      image: { url: p.image_url ?? '' },
      categories: categories.get(p.id) ?? [],
    };
  });
}

export const PRODUCT_SORTS = ['newest', 'price_asc', 'price_desc', 'name'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export interface ProductListQuery {
  page: number;
  per_page: number;
  /** Category slug. */
  category?: string;
  type?: Product['type'];
  /** Case-insensitive substring of the name. */
  search?: string;
  /** true: only products that can be bought now; false: only those that cannot. */
  in_stock?: boolean;
  sort: ProductSort;
}

export interface Page<T> {
  items: T[];
  meta: PageMeta;
}

/** `%` and `_` in a search are literal characters, not patterns. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** In stock: a code product with an available key, any other product with unlimited or positive stock. */
function whereInStock(knex: Knex, q: Knex.QueryBuilder, inStock: boolean): void {
  const condition = (b: Knex.QueryBuilder) =>
    b
      .where((c) =>
        c
          .where('products.type', 'code')
          .whereExists(
            knex('product_codes')
              .select(knex.raw('1'))
              .whereRaw('product_codes.product_id = products.id')
              .andWhere('product_codes.status', 'available'),
          ),
      )
      .orWhere((c) =>
        c
          .whereNot('products.type', 'code')
          .andWhere((s) => s.whereNull('products.stock').orWhere('products.stock', '>', 0)),
      );
  if (inStock) q.where(condition);
  else q.whereNot(condition);
}

/** GET /api/products: the store's active products, filtered, sorted and paginated. */
export async function listProducts(
  knex: Knex,
  store: Store,
  query: ProductListQuery,
  locale: 'ar' | 'en' = 'en',
): Promise<Page<ProductCard>> {
  const base = Product.query(knex).where('products.store_id', store.id).andWhere('products.active', true);
  if (query.type) base.andWhere('products.type', query.type);
  if (query.search) base.andWhereRaw("products.name ilike ? escape '\\'", [likePattern(query.search)]);
  if (query.category) {
    base.whereExists(
      knex('product_categories as pc')
        .join('categories as c', 'c.id', 'pc.category_id')
        .whereRaw('pc.product_id = products.id')
        .andWhere('c.store_id', store.id)
        .andWhere('c.slug', query.category),
    );
  }
  if (query.in_stock !== undefined) whereInStock(knex, base as unknown as Knex.QueryBuilder, query.in_stock);

  const total = await base.clone().resultSize();
  const ordered = base.clone();
  const price = knex.raw('coalesce(products.sale_price_minor, products.price_minor)');
  switch (query.sort) {
    case 'price_asc':
      ordered.orderBy(price, 'asc');
      break;
    case 'price_desc':
      ordered.orderBy(price, 'desc');
      break;
    case 'name':
      ordered.orderBy('products.name', 'asc');
      break;
    default:
      ordered.orderBy('products.created_at', 'desc');
  }
  ordered.orderBy('products.id', query.sort === 'newest' ? 'desc' : 'asc');
  const rows = await ordered
    .select('products.*')
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page);
  return { items: await productCards(knex, store, rows, locale), meta: pageMeta(query, total) };
}

/** GET /api/products/{id or slug}: digits name an id, anything else a slug; not found is a 404. */
export async function storefrontProduct(
  knex: Knex,
  store: Store,
  idOrSlug: string,
  offer: MethodOffer,
): Promise<ProductView> {
  const id = parseProductId(idOrSlug);
  let productId = id;
  if (productId === null) {
    const bySlug = await Product.query(knex).findOne({ store_id: store.id, slug: idOrSlug, active: true });
    if (!bySlug) throw new NotFoundError('Product not found').withCode('product_not_found');
    productId = bySlug.id;
  }
  const view = await productView(knex, store, productId, offer);
  // The same image.url as the product object of lists and the wishlist: a string, empty without an image.
  return { ...view, image: { url: view.image.url ?? '' } };
}
