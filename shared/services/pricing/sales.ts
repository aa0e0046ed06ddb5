import type { Knex } from 'knex';
import { nextBoundary, salePrice, type SaleTerms } from './sale-price';

/**
 * Timed sales as every price reader sees them (docs/growth.md, "Timed sales"): the Embed product answer,
 * the Storefront, the store pages, the Merchant product list, and every checkout and cart, which price
 * with `withTimedSales` right after loading their products.
 */

interface SaleRow {
  id: number;
  percent_bp: number | null;
  amount_minor: string | number | null;
  product_ids: number[];
  category_ids: number[];
  starts_at: Date;
  ends_at: Date;
  stackable: boolean;
}

export function saleTermsOf(row: SaleRow): SaleTerms {
  return {
    id: Number(row.id),
    percentBp: row.percent_bp === null ? null : Number(row.percent_bp),
    amountMinor: row.amount_minor === null ? null : Number(row.amount_minor),
    productIds: (row.product_ids ?? []).map(Number),
    categoryIds: (row.category_ids ?? []).map(Number),
    startsAt: new Date(row.starts_at),
    endsAt: new Date(row.ends_at),
    stackable: row.stackable,
  };
}

/** The store's sales running at `at` or still to come (their start is a boundary). */
export async function liveSales(knex: Knex, storeId: number, at: Date): Promise<SaleTerms[]> {
  const rows: SaleRow[] = await knex('sales')
    .where('store_id', storeId)
    .whereNull('deleted_at')
    .where('ends_at', '>', at)
    .select(
      'id',
      'percent_bp',
      'amount_minor',
      'product_ids',
      'category_ids',
      'starts_at',
      'ends_at',
      'stackable',
    );
  return rows.map(saleTermsOf);
}

/** A product as the price readers hold it: the model or a row with these columns. */
export interface PricedProduct {
  id: number;
  price_minor: number;
  sale_price_minor: number | null;
}

/**
 * Prices these products (of one store) at `at`: a product a running sale lowers gets the sale's price as
 * its `sale_price_minor` (the price every reader shows as `actual` and every checkout charges), on the
 * objects given. Answers when the first sale of the store starts or ends after `at` (null: none), the
 * instant a cached answer built from these prices stops being true.
 */
export async function withTimedSales<P extends PricedProduct>(
  knex: Knex,
  storeId: number,
  products: readonly P[],
  at: Date = new Date(),
): Promise<{ until: Date | null }> {
  const sales = await liveSales(knex, storeId, at);
  if (sales.length === 0 || products.length === 0) return { until: nextBoundary(sales, at) };
  const needCategories = sales.some((s) => s.categoryIds.length > 0);
  const categories = new Map<number, number[]>();
  if (needCategories) {
    const rows: { product_id: number; category_id: number }[] = await knex('product_categories')
      .whereIn(
        'product_id',
        products.map((p) => p.id),
      )
      .select('product_id', 'category_id');
    for (const r of rows) {
      const list = categories.get(Number(r.product_id)) ?? [];
      list.push(Number(r.category_id));
      categories.set(Number(r.product_id), list);
    }
  }
  for (const product of products) {
    const base = Number(product.sale_price_minor ?? product.price_minor);
    const { priceMinor, saleIds } = salePrice(base, product.id, categories.get(product.id) ?? [], sales, at);
    if (saleIds.length > 0 && priceMinor < base) product.sale_price_minor = priceMinor;
  }
  return { until: nextBoundary(sales, at) };
}
