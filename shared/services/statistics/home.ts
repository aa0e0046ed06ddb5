import type { Knex } from 'knex';
import { countStoreOrders, orderDayRows } from './rollups';

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
  /** The customer's id; null for a guest buyer (orders placed without an account, by phone). */
  id: number | null;
  /** A buyer who never made an account: the orders' phone, with the latest order's name and e-mail. */
  guest: boolean;
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
  /** The store's own order number (`orders.number`), the one people read. */
  number: number;
  status: number;
  total_minor: number;
  currency: string;
  created_at: Date;
}

/** Orders listed under each customer on the customers page; the rest are one link away. */
export const RECENT_ORDERS = 5;

/**
 * Whose an order is on the customers page: its customer (`c<id>`), or for a guest order its phone
 * (`g<code>:<phone>`).
 */
const PERSON_OF_ORDER =
  "coalesce('c' || o.customer_id, 'g' || o.customer_country_code || ':' || o.customer_phone)";
const personKey = (r: Pick<CustomerRow, 'id' | 'country_code' | 'phone'>): string =>
  r.id !== null ? `c${r.id}` : `g${r.country_code}:${r.phone}`;

/** The latest RECENT_ORDERS orders of each of the people, in one query. */
async function recentOrdersOf(
  knex: Knex,
  storeId: number,
  keys: string[],
): Promise<Map<string, CustomerOrder[]>> {
  const out = new Map<string, CustomerOrder[]>();
  if (keys.length === 0) return out;
  const rows = (await knex
    .select('*')
    .from(
      knex('orders as o')
        .where('o.store_id', storeId)
        .whereRaw(`${PERSON_OF_ORDER} = any(?)`, [keys])
        .select(
          'o.id',
          'o.number',
          knex.raw(`${PERSON_OF_ORDER} as person`),
          'o.status',
          'o.total_minor',
          'o.currency',
          'o.created_at',
          knex.raw(
            `row_number() over (partition by ${PERSON_OF_ORDER} order by o.created_at desc, o.id desc) as n`,
          ),
        )
        .as('r'),
    )
    .where('n', '<=', RECENT_ORDERS)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as (CustomerOrder & { person: string })[];
  for (const r of rows) {
    const list = out.get(r.person) ?? [];
    list.push({
      id: Number(r.id),
      number: Number(r.number),
      status: Number(r.status),
      total_minor: Number(r.total_minor),
      currency: r.currency,
      created_at: r.created_at,
    });
    out.set(r.person, list);
  }
  return out;
}

/**
 * The store's people, newest first, with their order count and paid total: its customers, and its guest
 * buyers (orders without an account, one row per phone that is no customer's), so a store whose buyers
 * never sign up still sees who bought.
 */
function peopleQuery(knex: Knex, storeId: number): Knex.Raw {
  return knex.raw(
    `select c.id, false as guest, c.first_name, c.last_name, c.email, c.country_code, c.phone, c.created_at
       from customers c where c.store_id = :storeId
     union all
     select null, true, (array_agg(o.customer_first_name order by o.id desc))[1],
            (array_agg(o.customer_last_name order by o.id desc))[1],
            (array_agg(o.customer_email order by o.id desc))[1],
            o.customer_country_code, o.customer_phone, min(o.created_at)
       from orders o
      where o.store_id = :storeId and o.customer_id is null
        and not exists (select 1 from customers c2 where c2.store_id = o.store_id
                         and c2.country_code = o.customer_country_code and c2.phone = o.customer_phone)
      group by o.customer_country_code, o.customer_phone`,
    { storeId },
  );
}

/** The store's customers and guest buyers, newest first, with their order count and paid total. */
export async function listCustomers(
  knex: Knex,
  storeId: number,
  page: number,
  perPage = 20,
): Promise<{ items: CustomerRow[]; total: number; lastPage: number }> {
  const people = peopleQuery(knex, storeId);
  const [countRow] = await knex.from(knex.raw('(?) as p', [people])).count<{ n: string }[]>('* as n');
  const total = Number(countRow?.n ?? 0);
  const ordersOf = `o.store_id = :storeId and (o.customer_id = p.id or (p.guest and o.customer_id is null
      and o.customer_country_code = p.country_code and o.customer_phone = p.phone))`;
  const rows = (await knex
    .from(knex.raw('(?) as p', [people]))
    .orderBy([
      { column: 'p.created_at', order: 'desc' },
      { column: 'p.guest', order: 'asc' },
      { column: 'p.id', order: 'desc' },
      { column: 'p.phone', order: 'asc' },
    ])
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select(
      'p.*',
      knex.raw(`(select count(*)::int from orders o where ${ordersOf}) as orders`, { storeId }),
      knex.raw(
        `(select coalesce(sum(o.total_minor), 0)::bigint from orders o where ${ordersOf} and o.status in (3, 4)) as spent_minor`,
        { storeId },
      ),
    )) as CustomerRow[];
  const recent = await recentOrdersOf(knex, storeId, rows.map(personKey));
  return {
    items: rows.map((r) => ({
      ...r,
      id: r.id === null ? null : Number(r.id),
      guest: Boolean(r.guest),
      spent_minor: Number(r.spent_minor),
      recent_orders: recent.get(personKey(r)) ?? [],
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
