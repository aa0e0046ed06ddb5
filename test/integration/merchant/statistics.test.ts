import os from 'node:os';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import { formatMoney } from '../../../shared/money';
import {
  orderFiguresQuery,
  storeStatistics,
  topProductsQuery,
  windowsOf,
} from '../../../shared/services/statistics';
import { listOrders } from '../../../shared/services/orders/read';
import { createProduct } from '../../helpers/builders';
import { call, expectEnvelope, merchantStore, MerchantStore, seedOrder, useMerchantSuite } from './support';

const ORDERS = 100_000;
const DAY = 86_400_000;

/**
 * GET /shawarma/store/statics on a store with 100,000 orders, seeded set-based (INSERT ... SELECT
 * generate_series), checked against figures computed here from the same formulas, with the plan and the
 * time of the statistics printed (no timing assertion: the machine is shared).
 */
describe('Merchant API: statistics on a store with 100,000 orders', function () {
  this.timeout(120_000);
  const suite = useMerchantSuite();
  let big: MerchantStore;
  let productIds: number[];
  let seededAt: Date;

  before(async () => {
    const { knex } = suite.deps;
    big = await merchantStore({ currency: 'SAR' });
    productIds = [];
    for (const name of ['Alpha', 'Beta', 'Gamma'])
      productIds.push((await createProduct(big.store, { name, price_minor: 1_000 })).id);
    seededAt = new Date(Date.now() - 1_000);
    const started = Date.now();
    // Order i: status (i % 6) + 1, total 10.00 + (i % 10), created (i % 400) days and one minute before seededAt.
    // Order i: status (i % 6) + 1, total 10.00 + (i % 10), created (i % 400) days and one minute before
    // seededAt; one item: product (i / 6) % 3, quantity 1 + (i % 3). One statement for both.
    await knex.raw(
      `with o as (
         insert into orders (store_id, status, customer_first_name, customer_last_name, customer_email,
                             customer_country_code, customer_phone, subtotal_minor, total_minor, currency, source, created_at)
         select ?, (i % 6) + 1, 'Seed', 'Buyer', 'seed' || i || '@example.com', '966', '5' || lpad(i::text, 8, '0'),
                1000 + (i % 10) * 100, 1000 + (i % 10) * 100, 'SAR', 'embed',
                ?::timestamptz - make_interval(days => i % 400) - interval '1 minute'
           from generate_series(1, ?) as i
         returning id, total_minor, substring(customer_phone from 2)::int as n)
       insert into order_items (order_id, product_id, name, type, quantity, unit_price_minor, total_minor)
       select o.id, (array[?, ?, ?]::int[])[((o.n / 6) % 3) + 1], 'Seeded', 'product', 1 + (o.n % 3), o.total_minor, o.total_minor
         from o`,
      [big.store.id, seededAt, ORDERS, ...productIds],
    );
    await knex.raw(
      `insert into customers (store_id, first_name, last_name, email, country_code, phone, e164, created_at)
       select ?, 'C', 'N', 'c' || j || '@example.com', '966', '6' || lpad(j::text, 8, '0'), '9666' || lpad(j::text, 8, '0'),
              ?::timestamptz - make_interval(days => j % 60) - interval '1 minute'
         from generate_series(1, 1000) as j`,
      [big.store.id, seededAt],
    );
    await knex.raw(
      `insert into analytics_events (store_id, type, visitor_id, path, occurred_at)
       select ?, case when j % 2 = 0 then 'pageview' else 'event' end, 'v' || (j % 200), '/',
              ?::timestamptz - make_interval(days => j % 40) - interval '1 minute'
         from generate_series(1, 5000) as j`,
      [big.store.id, seededAt],
    );
    const seeded = Date.now() - started;
    await knex.raw('vacuum analyze orders, order_items, customers, analytics_events');
    console.log(
      `      seeded ${ORDERS} orders, their items, 1,000 customers and 5,000 events in ${seeded} ms (vacuum analyze: ${Date.now() - started - seeded} ms)`,
    );
    // Another store's orders never count here.
    const other = await merchantStore();
    await seedOrder(knex, other.store, await createProduct(other.store), {
      status: ORDER_STATUS.COMPLETED,
      totalMinor: 999_999,
    });
  });

  const indent = (t: string) =>
    t
      .split('\n')
      .map((l) => `        ${l}`)
      .join('\n');

  /** The figures computed here, from the seeding formulas. */
  function expected(now: Date) {
    const w = windowsOf(now);
    const sales = { today: [0, 0], d7: [0, 0], d30: [0, 0], all: [0, 0] };
    const byStatus: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0 };
    const units = new Map<number, [number, number]>();
    for (let i = 1; i <= ORDERS; i += 1) {
      const status = (i % 6) + 1;
      const total = 1000 + (i % 10) * 100;
      const created = seededAt.getTime() - (i % 400) * DAY - 60_000;
      byStatus[String(status)] += 1;
      if (status !== 3 && status !== 4) continue;
      const add = (k: keyof typeof sales) => {
        sales[k][0] += 1;
        sales[k][1] += total;
      };
      add('all');
      if (created >= w.today.getTime()) add('today');
      if (created >= w.d7.getTime()) add('d7');
      if (created >= w.d30.getTime()) add('d30');
      const p = productIds[Math.floor(i / 6) % 3]!;
      const [q, r] = units.get(p) ?? [0, 0];
      units.set(p, [q + 1 + (i % 3), r + total]);
    }
    let customers30 = 0;
    let customers7 = 0;
    let customersToday = 0;
    for (let j = 1; j <= 1000; j += 1) {
      const created = seededAt.getTime() - (j % 60) * DAY - 60_000;
      if (created >= w.d30.getTime()) customers30 += 1;
      if (created >= w.d7.getTime()) customers7 += 1;
      if (created >= w.today.getTime()) customersToday += 1;
    }
    const perDay = new Map<string, { visitors: Set<string>; page_views: number }>();
    for (let j = 1; j <= 5000; j += 1) {
      const at = new Date(seededAt.getTime() - (j % 40) * DAY - 60_000);
      if (at.getTime() < w.today.getTime() - 29 * DAY) continue;
      const key = at.toISOString().slice(0, 10);
      const day = perDay.get(key) ?? { visitors: new Set<string>(), page_views: 0 };
      day.visitors.add(`v${j % 200}`);
      if (j % 2 === 0) day.page_views += 1;
      perDay.set(key, day);
    }
    const window = (k: keyof typeof sales) => ({ amount: formatMoney(sales[k][1]), orders: sales[k][0] });
    return {
      sales: {
        today: window('today'),
        last_7_days: window('d7'),
        last_30_days: window('d30'),
        all_time: window('all'),
      },
      orders_by_status: byStatus,
      top: [...units.entries()]
        .sort((a, b) => b[1][0] - a[1][0] || a[0] - b[0])
        .map(([product_id, [quantity, revenue]]) => ({
          product_id,
          quantity,
          revenue: formatMoney(revenue),
        })),
      customers: {
        today: customersToday,
        last_7_days: customers7,
        last_30_days: customers30,
        all_time: 1000,
      },
      perDay,
    };
  }

  it('answers the figures of the seeded store', async () => {
    const now = new Date(seededAt.getTime() + 1_000);
    const stats = await storeStatistics(suite.deps.knex, big.store, now);
    const want = expected(now);
    expect(stats.currency).to.equal('SAR');
    expect(stats.sales).to.deep.equal(want.sales);
    expect(stats.orders_by_status).to.deep.equal(want.orders_by_status);
    expect(Object.values(stats.orders_by_status).reduce((a, b) => a + b, 0)).to.equal(ORDERS);
    expect(
      stats.top_products.map(({ product_id, quantity, revenue }) => ({ product_id, quantity, revenue })),
    ).to.deep.equal(want.top);
    expect(stats.top_products.map((t) => t.name).sort()).to.deep.equal(['Alpha', 'Beta', 'Gamma']);
    expect(stats.new_customers).to.deep.equal(want.customers);
    expect(stats.traffic.days).to.have.length(30);
    for (const day of stats.traffic.days) {
      const w = want.perDay.get(day.date);
      expect(day, day.date).to.deep.equal({
        date: day.date,
        visitors: w?.visitors.size ?? 0,
        page_views: w?.page_views ?? 0,
      });
    }
    expect(stats.traffic.page_views_30_days).to.equal(
      stats.traffic.days.reduce((n, d) => n + d.page_views, 0),
    );
    const distinct = new Set([...want.perDay.values()].flatMap((d) => [...d.visitors]));
    expect(stats.traffic.visitors_30_days).to.equal(distinct.size);
  });

  it('GET /store/statics answers in the envelope; plan and time printed', async () => {
    const { knex } = suite.deps;
    const timings: number[] = [];
    let body: Record<string, unknown> = {};
    for (let run = 0; run < 5; run += 1) {
      const started = process.hrtime.bigint();
      const res = await call(suite.server, big.token, 'GET', '/shawarma/store/statics');
      timings.push(Number(process.hrtime.bigint() - started) / 1e6);
      expectEnvelope(res, 200);
      body = res.body.data as Record<string, unknown>;
    }
    expect((body.sales as { all_time: { orders: number } }).all_time.orders).to.equal(
      expected(new Date()).sales.all_time.orders,
    );
    // The order figures and top products read the order rollups (shared/services/statistics/rollups.ts);
    // the orders themselves only for the first, partial day of a rolling window, by index range.
    const explain = async (q: { toString(): string }) =>
      (
        await knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(`explain (analyze, buffers) ${q.toString()}`)
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    const figures = await explain(orderFiguresQuery(knex, big.store.id, new Date()));
    expect(figures).to.match(/order_figures_total/);
    expect(figures).to.match(/order_figures_daily/);
    expect(figures).to.match(/Index (Only )?Scan using orders_store_(created|status) on orders/);
    expect(figures).to.not.match(/Seq Scan on orders/);
    const top = await explain(topProductsQuery(knex, big.store.id));
    expect(top).to.match(/product_sales/);
    expect(top).to.not.match(/on order(s|_items)\b/);
    timings.sort((a, b) => a - b);
    console.log(
      `      GET /shawarma/store/statics on ${ORDERS} orders: median ${timings[2]!.toFixed(1)} ms (runs: ${timings.map((t) => t.toFixed(1)).join(', ')} ms; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`,
    );
    console.log(`      order figures:\n${indent(figures)}`);
    console.log(`      top products:\n${indent(top)}`);
  });
  it('GET /orders answers the first page and the exact total without scanning the orders; plans printed', async () => {
    const { knex } = suite.deps;
    const res = await call(suite.server, big.token, 'GET', '/shawarma/orders?per_page=50');
    expectEnvelope(res, 200);
    const page = res.body.data as { data: { id: number }[]; meta: Record<string, number> };
    expect(page.meta).to.deep.equal({ page: 1, per_page: 50, total: ORDERS, last_page: ORDERS / 50 });
    const filtered = await call(suite.server, big.token, 'GET', '/shawarma/orders?per_page=50&status=3');
    expectEnvelope(filtered, 200);
    expect((filtered.body.data as { meta: { total: number } }).meta.total).to.equal(
      expected(new Date()).orders_by_status['3'],
    );
    // The statements of one list call, explained: none scans the orders or counts them.
    const statements: { sql: string; bindings: readonly unknown[] }[] = [];
    const note = (q: { sql: string; bindings?: readonly unknown[] }) =>
      statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
    knex.on('query', note);
    try {
      await listOrders(knex, big.store.id, {}, { page: 1, per_page: 50 });
    } finally {
      knex.removeListener('query', note);
    }
    const plans: string[] = [];
    for (const { sql, bindings } of statements) {
      const { rows } = await knex.raw<{ rows: { 'QUERY PLAN': string }[] }>(
        `explain (analyze, buffers) ${sql.replace(/\$\d+/g, '?')}`,
        bindings as Knex.RawBinding[],
      );
      plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
    const all = plans.join('\n');
    expect(all).to.not.match(/Seq Scan on orders/);
    expect(statements.filter((q) => /count\(/.test(q.sql) && /from "orders"/.test(q.sql))).to.deep.equal([]);
    expect(all).to.match(/Index Scan using orders_store_created on orders/);
    console.log(`      GET /shawarma/orders?per_page=50, its statements:\n${plans.map(indent).join('\n')}`);
  });
});
