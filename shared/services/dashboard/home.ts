import type { Knex } from 'knex';
import { countStoreOrders, orderDayRows } from '../merchant/rollups';

/**
 * The dashboard home's figures, from the store's own orders and customers, in UTC days like the Merchant
 * API's statistics: sales are orders that are paid and stand (In progress 3, Completed 4), so cancelled
 * and refunded orders and orders still waiting for payment do not count.
 */
const PAID = [3, 4];
const DAY_MS = 86_400_000;
export const CHART_DAYS = 30;

export interface Figures {
  sales_minor: number;
  orders: number;
  new_customers: number;
}

export interface HomeFigures {
  currency: string;
  today: Figures;
  month: Figures;
  /** Oldest first, CHART_DAYS entries ending today: the day (YYYY-MM-DD) and its sales. */
  days: { date: string; sales_minor: number; orders: number }[];
  awaiting_review: number;
}

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);

export async function homeFigures(
  knex: Knex,
  store: { id: number; currency: string },
  now = new Date(),
): Promise<HomeFigures> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const chartStart = new Date(today.getTime() - (CHART_DAYS - 1) * DAY_MS);
  const since = month < chartStart ? month : chartStart;
  // Whole UTC days from `since`: the order rollups answer them exactly (merchant/rollups.ts).
  const [orderRows, customerRow, reviewRow] = await Promise.all([
    knex
      .from(orderDayRows(knex, store.id, dayOf(since)).as('f'))
      .whereIn('status', PAID)
      .groupBy('day')
      .select(
        knex.raw("to_char(day, 'YYYY-MM-DD') as day"),
        knex.raw('sum(orders)::int as n'),
        knex.raw('coalesce(sum(total_minor), 0)::bigint as total'),
      ) as Promise<{ day: string; n: number; total: string | number }[]>,
    knex('customers')
      .where('store_id', store.id)
      .where('created_at', '>=', month < today ? month : today)
      .first(
        knex.raw('count(*) filter (where created_at >= ?)::int as today', [today]),
        knex.raw('count(*) filter (where created_at >= ?)::int as month', [month]),
      ) as Promise<{ today: number; month: number } | undefined>,
    countStoreOrders(knex, store.id, [2]),
  ]);
  const byDay = new Map(orderRows.map((r) => [r.day, { n: r.n, total: Number(r.total) }]));
  const sum = (from: Date): Figures => {
    let sales = 0;
    let orders = 0;
    for (const [day, v] of byDay) {
      if (day >= dayOf(from)) {
        sales += v.total;
        orders += v.n;
      }
    }
    return { sales_minor: sales, orders, new_customers: 0 };
  };
  const days = Array.from({ length: CHART_DAYS }, (_, i) => {
    const date = dayOf(new Date(chartStart.getTime() + i * DAY_MS));
    const v = byDay.get(date);
    return { date, sales_minor: v?.total ?? 0, orders: v?.n ?? 0 };
  });
  return {
    currency: store.currency,
    today: { ...sum(today), new_customers: customerRow?.today ?? 0 },
    month: { ...sum(month), new_customers: customerRow?.month ?? 0 },
    days,
    awaiting_review: reviewRow,
  };
}

export interface CustomerRow {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  country_code: string;
  phone: string;
  created_at: Date;
  orders: number;
  spent_minor: number;
  /** The customer's latest orders (at most RECENT_ORDERS), newest first. */
  recent_orders: CustomerOrder[];
}

export interface CustomerOrder {
  id: number;
  status: number;
  total_minor: number;
  currency: string;
  created_at: Date;
}

/** Orders listed under each customer on the customers page; the rest are one link away. */
export const RECENT_ORDERS = 5;

/** The latest RECENT_ORDERS orders of each of the customers, in one query. */
async function recentOrdersOf(
  knex: Knex,
  storeId: number,
  customerIds: number[],
): Promise<Map<number, CustomerOrder[]>> {
  const out = new Map<number, CustomerOrder[]>();
  if (customerIds.length === 0) return out;
  const rows = (await knex
    .select('*')
    .from(
      knex('orders')
        .where('store_id', storeId)
        .whereIn('customer_id', customerIds)
        .select(
          'id',
          'customer_id',
          'status',
          'total_minor',
          'currency',
          'created_at',
          knex.raw('row_number() over (partition by customer_id order by created_at desc, id desc) as n'),
        )
        .as('o'),
    )
    .where('n', '<=', RECENT_ORDERS)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as (CustomerOrder & { customer_id: number })[];
  for (const r of rows) {
    const list = out.get(Number(r.customer_id)) ?? [];
    list.push({
      id: Number(r.id),
      status: Number(r.status),
      total_minor: Number(r.total_minor),
      currency: r.currency,
      created_at: r.created_at,
    });
    out.set(Number(r.customer_id), list);
  }
  return out;
}

/** The store's customers, newest first, with their order count and paid total. */
export async function listCustomers(
  knex: Knex,
  storeId: number,
  page: number,
  perPage = 20,
): Promise<{ items: CustomerRow[]; total: number; lastPage: number }> {
  const [countRow] = await knex('customers').where('store_id', storeId).count<{ n: string }[]>('* as n');
  const total = Number(countRow?.n ?? 0);
  const rows = await knex('customers as c')
    .where('c.store_id', storeId)
    .orderBy([
      { column: 'c.created_at', order: 'desc' },
      { column: 'c.id', order: 'desc' },
    ])
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select(
      'c.id',
      'c.first_name',
      'c.last_name',
      'c.email',
      'c.country_code',
      'c.phone',
      'c.created_at',
      knex.raw('(select count(*)::int from orders o where o.customer_id = c.id) as orders'),
      knex.raw(
        '(select coalesce(sum(total_minor), 0)::bigint from orders o where o.customer_id = c.id and o.status in (3, 4)) as spent_minor',
      ),
    );
  const recent = await recentOrdersOf(
    knex,
    storeId,
    rows.map((r: CustomerRow) => Number(r.id)),
  );
  return {
    items: rows.map((r: CustomerRow) => ({
      ...r,
      spent_minor: Number(r.spent_minor),
      recent_orders: recent.get(Number(r.id)) ?? [],
    })),
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
  };
}

export interface PaymentAttempt {
  id: number;
  method: string;
  provider: string;
  status: string;
  amount_minor: number;
  currency: string;
  error_message: string | null;
  created_at: Date;
}

/** Every payment tried for the order's checkout, oldest first (a failed card, then the bank transfer...). */
export async function paymentAttempts(
  knex: Knex,
  storeId: number,
  orderId: number,
): Promise<PaymentAttempt[]> {
  const rows = await knex('payments as p')
    .join('orders as o', 'o.checkout_id', 'p.checkout_id')
    .where({ 'o.id': orderId, 'o.store_id': storeId })
    .orderBy('p.id')
    .select(
      'p.id',
      'p.method',
      'p.provider',
      'p.status',
      'p.amount_minor',
      'p.currency',
      'p.error_message',
      'p.created_at',
    );
  return rows.map((r: PaymentAttempt) => ({ ...r, amount_minor: Number(r.amount_minor) }));
}

/** The store's products for the orders filter: id and name, newest first. */
export async function productChoices(knex: Knex, storeId: number): Promise<{ id: number; name: string }[]> {
  return knex('products').where('store_id', storeId).orderBy('id', 'desc').limit(500).select('id', 'name');
}
