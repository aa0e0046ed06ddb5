import type { Knex } from 'knex';

/**
 * The order rollups (CONTEXT.md, "Order rollups"; migration 20261125000100_order_rollups.ts): triggers on
 * `orders` and `order_items` append signed deltas; `compactOrderRollups` folds them into one row per
 * (store, UTC day, status) and per (store, product); readers add both, in one statement, so a figure is
 * exact whether or not the compaction has run.
 */

/** A store's rows of a rollup: the compacted ones and the deltas not folded yet. */
function rollupRows(knex: Knex, compacted: string, deltas: string, storeId: number, columns: string[]) {
  return knex
    .select(columns)
    .from(compacted)
    .where('store_id', storeId)
    .unionAll(knex.select(columns).from(deltas).where('store_id', storeId));
}

/** Orders and their totals of a store per UTC day (YYYY-MM-DD) and status. */
export function orderFigureRows(knex: Knex, storeId: number): Knex.QueryBuilder {
  return rollupRows(knex, 'order_figures_daily', 'order_figure_deltas', storeId, [
    'day',
    'status',
    'orders',
    'total_minor',
  ]);
}

/** Units and revenue of a store's paid orders per product. */
export function productSalesRows(knex: Knex, storeId: number): Knex.QueryBuilder {
  return rollupRows(knex, 'product_sales', 'product_sales_deltas', storeId, [
    'product_id',
    'quantity',
    'revenue_minor',
  ]);
}

/** The number of a store's orders, of some statuses or of all. */
export async function countStoreOrders(knex: Knex, storeId: number, statuses?: number[]): Promise<number> {
  const q = knex.from(orderFigureRows(knex, storeId).as('f'));
  if (statuses?.length) q.whereIn('status', statuses);
  const row = await q.first<{ n: string | null }>(knex.raw('sum(orders) as n'));
  return Number(row?.n ?? 0);
}

/** Lock key of the compaction: runs at once wait for each other instead of contending row by row. */
const COMPACTION_LOCK = 'order-rollups';

/**
 * Folds every pending delta into the compacted rows: per table one statement (DELETE ... RETURNING in a
 * CTE, summed, upserted), both in one transaction, so a reader sees the deltas either pending or folded,
 * never both or neither. Deltas of deleted stores are dropped. Safe to run twice or at once: a delta is
 * deleted by one run only, and runs at once queue on a transaction lock.
 */
export async function compactOrderRollups(knex: Knex): Promise<{ figures: number; products: number }> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [COMPACTION_LOCK]);
    const figures = await trx.raw<{ rowCount: number }>(
      `with d as (delete from order_figure_deltas returning store_id, day, status, orders, total_minor)
       insert into order_figures_daily as f (store_id, day, status, orders, total_minor)
       select d.store_id, d.day, d.status, sum(d.orders), sum(d.total_minor)
         from d join stores s on s.id = d.store_id
        group by 1, 2, 3
       on conflict (store_id, day, status) do update
          set orders = f.orders + excluded.orders, total_minor = f.total_minor + excluded.total_minor`,
    );
    const products = await trx.raw<{ rowCount: number }>(
      `with d as (delete from product_sales_deltas returning store_id, product_id, quantity, revenue_minor)
       insert into product_sales as p (store_id, product_id, quantity, revenue_minor)
       select d.store_id, d.product_id, sum(d.quantity), sum(d.revenue_minor)
         from d join stores s on s.id = d.store_id
        group by 1, 2
       on conflict (store_id, product_id) do update
          set quantity = p.quantity + excluded.quantity, revenue_minor = p.revenue_minor + excluded.revenue_minor`,
    );
    return { figures: figures.rowCount, products: products.rowCount };
  });
}
