import type { Knex } from 'knex';

/**
 * The order rollups (CONTEXT.md, "Order rollups"; migration 20261125000100_order_rollups.ts): triggers on
 * `orders` and `order_items` append signed deltas; `compactOrderRollups` folds them into one row per
 * (store, UTC day, status), per (store, status) and per (store, product); readers add both, in one
 * statement, so a figure is exact whether or not the compaction has run.
 */

/** A store's rows of a rollup table and of its deltas not folded yet. */
function withDeltas(compacted: Knex.QueryBuilder, deltas: Knex.QueryBuilder, storeId: number) {
  return compacted.where('store_id', storeId).unionAll(deltas.where('store_id', storeId));
}

/** Orders and their totals of a store per status, all time. */
export function orderTotalRows(knex: Knex, storeId: number): Knex.QueryBuilder {
  const columns = ['status', 'orders', 'total_minor'];
  return withDeltas(
    knex('order_figures_total').select(columns),
    knex('order_figure_deltas').select(columns),
    storeId,
  );
}

/** Orders and their totals of a store per UTC day and status, from `fromDay` (YYYY-MM-DD) on. */
export function orderDayRows(knex: Knex, storeId: number, fromDay: string): Knex.QueryBuilder {
  const columns = ['day', 'status', 'orders', 'total_minor'];
  return withDeltas(
    knex('order_figures_daily').select(columns).where('day', '>=', fromDay),
    knex('order_figure_deltas').select(columns).where('day', '>=', fromDay),
    storeId,
  );
}

/** Units and revenue of a store's paid orders per product. */
export function productSalesRows(knex: Knex, storeId: number): Knex.QueryBuilder {
  const columns = ['product_id', 'quantity', 'revenue_minor'];
  return withDeltas(
    knex('product_sales').select(columns),
    knex('product_sales_deltas').select(columns),
    storeId,
  );
}

/** The number of a store's orders, of some statuses or of all. */
export async function countStoreOrders(knex: Knex, storeId: number, statuses?: number[]): Promise<number> {
  const q = knex.from(orderTotalRows(knex, storeId).as('f'));
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
      `with d as (
         delete from order_figure_deltas returning store_id, day, status, orders, total_minor
       ), live as (
         select d.* from d join stores s on s.id = d.store_id
       ), daily as (
         insert into order_figures_daily as f (store_id, day, status, orders, total_minor)
         select store_id, day, status, sum(orders), sum(total_minor) from live group by 1, 2, 3
         on conflict (store_id, day, status) do update
            set orders = f.orders + excluded.orders, total_minor = f.total_minor + excluded.total_minor
       )
       insert into order_figures_total as t (store_id, status, orders, total_minor)
       select store_id, status, sum(orders), sum(total_minor) from live group by 1, 2
       on conflict (store_id, status) do update
          set orders = t.orders + excluded.orders, total_minor = t.total_minor + excluded.total_minor`,
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
