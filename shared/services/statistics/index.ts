import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { formatMoney } from '../../money';
import { dailyTraffic } from '../analytics/rollups';
import { orderDayRows, orderTotalRows, productSalesRows } from './rollups';

/**
 * GET /shawarma/store/statics: the store's figures. Days are UTC days.
 *
 * - sales: orders that are paid and stand (In progress 3, Completed 4); cancelled and refunded orders do
 *   not count, orders waiting for payment or review neither. Today, the last 7 and 30 days (rolling), all time.
 * - orders_by_status: every order by its status code, "1" to "6".
 * - top_products: the five products with most units sold (paid orders, all time).
 * - new_customers: customers created today, in 7 and 30 days, all time.
 * - traffic: from the analytics events, per UTC day of the last 30 days: distinct visitors and page views;
 *   finished days come from the daily rollups, the others from their live counts (analytics/rollups.ts).
 *
 * Speed on a large store (100,000 orders; docs/performance.md, "Merchant reads on 100,000 orders"): the
 * order figures and top products come from the order rollups (rollups.ts, CONTEXT.md "Order rollups"),
 * a few thousand rows at most, exact; the orders themselves are read only for the first, partial day of
 * a rolling window, by index range. The statistics test seeds 100,000 orders and prints the plans.
 */

export interface SalesWindow {
  amount: string;
  orders: number;
}

export interface StoreStatistics {
  currency: string;
  sales: { today: SalesWindow; last_7_days: SalesWindow; last_30_days: SalesWindow; all_time: SalesWindow };
  orders_by_status: Record<'1' | '2' | '3' | '4' | '5' | '6', number>;
  top_products: { product_id: number; name: string; quantity: number; revenue: string }[];
  new_customers: { today: number; last_7_days: number; last_30_days: number; all_time: number };
  traffic: {
    visitors_30_days: number;
    page_views_30_days: number;
    days: { date: string; visitors: number; page_views: number }[];
  };
  generated_at: string;
}

const PAID = [3, 4];
const DAY_MS = 86_400_000;

export function windowsOf(now: Date): { today: Date; d7: Date; d30: Date } {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { today, d7: new Date(now.getTime() - 7 * DAY_MS), d30: new Date(now.getTime() - 30 * DAY_MS) };
}

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * The order figures per status in one statement, from the order rollups (rollups.ts): all time from the
 * per-status rows; today and the whole UTC days of the rolling windows from the per-day rows of the last
 * 30 days; the first, partial day of a rolling window (from `now - 7 days` to its midnight) from the
 * orders themselves, an index range of one day.
 */
export function orderFiguresQuery(knex: Knex, storeId: number, now: Date): Knex.QueryBuilder {
  const w = windowsOf(now);
  const firstDayOf = (from: Date, kind: string) =>
    knex('orders')
      .where('store_id', storeId)
      .where('created_at', '>=', from)
      .where('created_at', '<', new Date(Date.parse(dayOf(from)) + DAY_MS))
      .select(
        knex.raw('? as kind', [kind]),
        knex.raw('null::date as day'),
        'status',
        knex.raw('1 as orders'),
        'total_minor',
      );
  const rows = knex
    .select(knex.raw("'all' as kind"), knex.raw('null::date as day'), 'status', 'orders', 'total_minor')
    .from(orderTotalRows(knex, storeId).as('t'))
    .unionAll([
      knex
        .select(knex.raw("'day' as kind"), 'day', 'status', 'orders', 'total_minor')
        .from(orderDayRows(knex, storeId, dayOf(w.d30)).as('d')),
      firstDayOf(w.d7, 'first_7'),
      firstDayOf(w.d30, 'first_30'),
    ]);
  // Sums of the rows of a window: the rollup days it covers whole and, for a rolling one, its first day.
  const sums = (n: string, total: string, rows: string, bindings: string[]) => [
    knex.raw(`coalesce(sum(orders) filter (where ${rows}), 0)::int as ${n}`, bindings),
    knex.raw(`coalesce(sum(total_minor) filter (where ${rows}), 0)::bigint as ${total}`, bindings),
  ];
  return knex
    .from(rows.as('f'))
    .groupBy('status')
    .select(
      'status',
      ...sums('n', 'total', "kind = 'all'", []),
      ...sums('n_today', 't_today', "kind = 'day' and day >= ?", [dayOf(w.today)]),
      ...sums('n_7', 't_7', "(kind = 'day' and day > ?) or kind = 'first_7'", [dayOf(w.d7)]),
      ...sums('n_30', 't_30', "(kind = 'day' and day > ?) or kind = 'first_30'", [dayOf(w.d30)]),
    );
}

/** The five products with most units in paid orders, from the product sales rollup (rollups.ts). */
export function topProductsQuery(knex: Knex, storeId: number): Knex.QueryBuilder {
  return (
    knex
      .from(productSalesRows(knex, storeId).as('s'))
      .leftJoin('products as p', 'p.id', 's.product_id')
      .groupBy('s.product_id', 'p.name')
      // A product whose paid items are all gone (refunded, cancelled) is not a top product.
      .havingRaw('sum(s.quantity) > 0')
      .select(
        's.product_id',
        'p.name',
        knex.raw('sum(s.quantity)::bigint as quantity'),
        knex.raw('sum(s.revenue_minor)::bigint as revenue'),
      )
      .orderBy([
        { column: 'quantity', order: 'desc' },
        { column: 's.product_id', order: 'asc' },
      ])
      .limit(5)
  );
}

interface FigureRow {
  status: number;
  n: number;
  total: number;
  n_today: number;
  t_today: number;
  n_7: number;
  t_7: number;
  n_30: number;
  t_30: number;
}

export async function storeStatistics(knex: Knex, store: Store, now = new Date()): Promise<StoreStatistics> {
  const w = windowsOf(now);
  const [figures, top, customers, traffic] = await Promise.all([
    orderFiguresQuery(knex, store.id, now) as Promise<FigureRow[]>,
    topProductsQuery(knex, store.id) as Promise<
      { product_id: number; name: string | null; quantity: number; revenue: number }[]
    >,
    knex('customers')
      .where('store_id', store.id)
      .first<{ all_time: number; today: number; d7: number; d30: number }>(
        knex.raw('count(*)::int as all_time'),
        knex.raw('count(*) filter (where created_at >= ?)::int as today', [w.today]),
        knex.raw('count(*) filter (where created_at >= ?)::int as d7', [w.d7]),
        knex.raw('count(*) filter (where created_at >= ?)::int as d30', [w.d30]),
      ),
    dailyTraffic(knex, store.id, new Date(w.today.getTime() - 29 * DAY_MS), now),
  ]);

  const sum = (pick: (r: FigureRow) => [number, number]): SalesWindow => {
    let n = 0;
    let total = 0;
    for (const row of figures) {
      if (!PAID.includes(Number(row.status))) continue;
      const [count, amount] = pick(row);
      n += Number(count);
      total += Number(amount);
    }
    return { amount: formatMoney(total, store.currency), orders: n };
  };
  const byStatus = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0 };
  for (const row of figures) byStatus[String(row.status) as keyof typeof byStatus] = Number(row.n);

  const perDay = traffic.days;
  const days: StoreStatistics['traffic']['days'] = [];
  for (let i = 29; i >= 0; i -= 1) {
    const date = new Date(w.today.getTime() - i * DAY_MS).toISOString().slice(0, 10);
    days.push({ date, ...(perDay.get(date) ?? { visitors: 0, page_views: 0 }) });
  }

  return {
    currency: store.currency,
    sales: {
      today: sum((r) => [r.n_today, r.t_today]),
      last_7_days: sum((r) => [r.n_7, r.t_7]),
      last_30_days: sum((r) => [r.n_30, r.t_30]),
      all_time: sum((r) => [r.n, r.total]),
    },
    orders_by_status: byStatus,
    top_products: top.map((t) => ({
      product_id: t.product_id,
      name: t.name ?? '',
      quantity: Number(t.quantity),
      revenue: formatMoney(Number(t.revenue), store.currency),
    })),
    new_customers: {
      today: Number(customers?.today ?? 0),
      last_7_days: Number(customers?.d7 ?? 0),
      last_30_days: Number(customers?.d30 ?? 0),
      all_time: Number(customers?.all_time ?? 0),
    },
    traffic: {
      visitors_30_days: traffic.visitors,
      page_views_30_days: traffic.page_views,
      days,
    },
    generated_at: now.toISOString(),
  };
}
