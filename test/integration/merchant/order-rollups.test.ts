import { expect } from 'chai';
import type { Knex } from 'knex';
import { ORDER_STATUS, type OrderStatus, type Product, type Store } from '../../../db/models';
import { formatMoney } from '../../../shared/money';
import { homeFigures } from '../../../shared/services/statistics/home';
import { listProducts } from '../../../shared/services/catalogue/read';
import { listOrders } from '../../../shared/services/orders/read';
import { compactOrderRollups, countStoreOrders } from '../../../shared/services/statistics/rollups';
import { storeStatistics, windowsOf } from '../../../shared/services/statistics';
import { MAINTENANCE_TASKS } from '../../../shared/services/maintenance';
import { createProduct, createStore } from '../../helpers/builders';
import { sharedDeps } from '../../helpers/deps';
import { seedOrder } from './support';

const DAY = 86_400_000;
const PAID = [3, 4];

/**
 * The order rollups (shared/services/statistics/CONTEXT.md): after every kind of write the
 * Merchant statistics, the order list's total and the dashboard home equal a straightforward aggregate
 * over `orders` and `order_items`, with deltas pending and after the compaction folded them.
 */
describe('Order rollups: figures equal the aggregate over the orders', function () {
  this.timeout(60_000);
  let knex: Knex;
  let store: Store;
  let products: Product[];

  before(async () => {
    knex = (await sharedDeps()).knex;
    store = await createStore({ currency: 'SAR' });
    products = [];
    for (const name of ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon', 'Zeta'])
      products.push(await createProduct(store, { name, price_minor: 1_000 + products.length * 100 }));
  });

  /** The figures the statistics promise, computed from the orders and items themselves. */
  async function aggregate(storeId: number, now: Date) {
    const w = windowsOf(now);
    const orders = await knex('orders')
      .where('store_id', storeId)
      .select<{ status: number; total_minor: string; created_at: Date }[]>(
        'status',
        'total_minor',
        'created_at',
      );
    const sales = { today: [0, 0], last_7_days: [0, 0], last_30_days: [0, 0], all_time: [0, 0] };
    const byStatus: Record<string, number> = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, '6': 0 };
    for (const o of orders) {
      byStatus[String(o.status)] += 1;
      if (!PAID.includes(o.status)) continue;
      const at = o.created_at.getTime();
      for (const [k, from] of [
        ['all_time', 0],
        ['today', w.today.getTime()],
        ['last_7_days', w.d7.getTime()],
        ['last_30_days', w.d30.getTime()],
      ] as const) {
        if (at < from) continue;
        sales[k][0] += 1;
        sales[k][1] += Number(o.total_minor);
      }
    }
    const top = await knex('order_items as oi')
      .join('orders as o', 'o.id', 'oi.order_id')
      .where('o.store_id', storeId)
      .whereIn('o.status', PAID)
      .whereNotNull('oi.product_id')
      .groupBy('oi.product_id')
      .select<{ product_id: number; quantity: string; revenue: string }[]>(
        'oi.product_id',
        knex.raw('sum(oi.quantity) as quantity'),
        knex.raw('sum(oi.total_minor) as revenue'),
      );
    top.sort((a, b) => Number(b.quantity) - Number(a.quantity) || a.product_id - b.product_id);
    const window = ([n, t]: number[]) => ({ amount: formatMoney(t!, 'SAR'), orders: n! });
    return {
      sales: {
        today: window(sales.today),
        last_7_days: window(sales.last_7_days),
        last_30_days: window(sales.last_30_days),
        all_time: window(sales.all_time),
      },
      orders_by_status: byStatus,
      top_products: top.slice(0, 5).map((t) => ({
        product_id: t.product_id,
        quantity: Number(t.quantity),
        revenue: formatMoney(Number(t.revenue), 'SAR'),
      })),
      units: top,
      total: orders.length,
      paid: orders.filter((o) => PAID.includes(o.status)).length,
      awaiting_review: byStatus['2'],
      // Paid sales per UTC day, for the dashboard home's chart.
      days: orders
        .filter((o) => PAID.includes(o.status))
        .reduce((m, o) => {
          const d = o.created_at.toISOString().slice(0, 10);
          m.set(d, (m.get(d) ?? 0) + Number(o.total_minor));
          return m;
        }, new Map<string, number>()),
    };
  }

  /** Every reader equals the aggregate, with the deltas pending and again once compacted. */
  async function expectExact(s: Store = store, now = new Date()): Promise<void> {
    for (const when of ['pending', 'compacted']) {
      if (when === 'compacted') await compactOrderRollups(knex);
      const want = await aggregate(s.id, now);
      const stats = await storeStatistics(knex, s, now);
      expect(stats.sales, when).to.deep.equal(want.sales);
      expect(stats.orders_by_status, when).to.deep.equal(want.orders_by_status);
      expect(
        stats.top_products.map(({ product_id, quantity, revenue }) => ({ product_id, quantity, revenue })),
        when,
      ).to.deep.equal(want.top_products);
      expect(await countStoreOrders(knex, s.id), when).to.equal(want.total);
      const list = await listOrders(knex, s.id, { status: [3, 4] }, { page: 1, per_page: 5 });
      expect(list.meta.total, when).to.equal(want.paid);
      const home = await homeFigures(knex, s, now);
      expect(home.awaiting_review, when).to.equal(want.awaiting_review);
      for (const day of home.days) expect(day.sales_minor, day.date).to.equal(want.days.get(day.date) ?? 0);
      // Each product's sales_count (Merchant API and dashboard product pages): its units in paid orders.
      const listed = await listProducts(knex, s, {}, { page: 1, per_page: 100 });
      const units = new Map(want.units.map((t) => [t.product_id, Number(t.quantity)]));
      for (const p of listed.items) expect(p.sales_count, `${when} ${p.name}`).to.equal(units.get(p.id) ?? 0);
    }
  }

  const order = (status: number, product: Product, opts: { quantity?: number; createdAt?: Date } = {}) =>
    seedOrder(knex, store, product, { status: status as OrderStatus, ...opts });

  it('creates in every status, today and over past days', async () => {
    for (let i = 0; i < 36; i += 1) {
      await order((i % 6) + 1, products[i % products.length]!, {
        quantity: 1 + (i % 4),
        createdAt: new Date(Date.now() - (i % 12) * 3 * DAY - 60_000),
      });
    }
    await expectExact();
  });

  it('follows status changes: paid, refunded, cancelled, back and forth', async () => {
    const ids = (await knex('orders').where('store_id', store.id).orderBy('id').pluck('id')) as number[];
    await knex('orders').whereIn('id', ids.slice(0, 6)).update({ status: ORDER_STATUS.COMPLETED });
    await expectExact();
    await knex('orders').whereIn('id', ids.slice(2, 4)).update({ status: 6 });
    await knex('orders').where('id', ids[6]!).update({ status: 5 });
    await knex('orders').where('id', ids[7]!).update({ status: 3 });
    await expectExact();
    // Unrelated columns move nothing.
    await knex('orders').whereIn('id', ids).update({ updated_at: new Date() });
    await knex('orders').where('id', ids[8]!).update({ total_minor: 12_345 });
    await expectExact();
  });

  it('follows items added, changed and removed on paid orders, and deleted products', async () => {
    const paid = (await knex('orders')
      .where({ store_id: store.id })
      .whereIn('status', PAID)
      .orderBy('id')
      .pluck('id')) as number[];
    await knex('order_items').insert({
      order_id: paid[0],
      product_id: products[5]!.id,
      name: 'Extra',
      type: 'product',
      quantity: 40,
      unit_price_minor: 100,
      total_minor: 4_000,
    });
    await expectExact();
    await knex('order_items').where('order_id', paid[1]!).update({ quantity: 30, total_minor: 9_999 });
    await knex('order_items').where('order_id', paid[2]!).delete();
    await expectExact();
    const gone = await createProduct(store, { name: 'Gone' });
    await order(3, gone, { quantity: 99 });
    await expectExact();
    await knex('products').where('id', gone.id).delete();
    await expectExact();
  });

  it('follows deleted orders, paid or not', async () => {
    const [paid] = (await knex('orders').where({ store_id: store.id, status: 4 }).pluck('id')) as number[];
    const [unpaid] = (await knex('orders').where({ store_id: store.id, status: 1 }).pluck('id')) as number[];
    await knex('orders').whereIn('id', [paid!, unpaid!]).delete();
    await expectExact();
  });

  it('counts 50 orders created at once on one store, compacted by two runs at once', async () => {
    const runs: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i += 1) {
      runs.push(order(i % 2 === 0 ? 3 : 1, products[i % 3]!, { quantity: 1 + (i % 2) }));
      if (i % 10 === 0) runs.push(compactOrderRollups(knex));
    }
    await Promise.all(runs);
    await expectExact();
    await order(4, products[0]!);
    const task = MAINTENANCE_TASKS['order-rollups']!;
    const ctx = {} as Parameters<typeof task>[2];
    await Promise.all([task(knex, undefined, ctx), task(knex, undefined, ctx)]);
    expect(Number((await knex('order_figure_deltas').count<{ n: string }[]>('* as n'))[0]!.n)).to.equal(0);
    expect(Number((await knex('product_sales_deltas').count<{ n: string }[]>('* as n'))[0]!.n)).to.equal(0);
    await expectExact();
  });

  it('keeps the rolling windows exact at their boundaries', async () => {
    const edge = await createStore({ currency: 'SAR' });
    const product = await createProduct(edge);
    // 11:30 UTC, so the window's first day has orders on both sides of `now - 7 days`.
    const now = new Date(Math.floor(Date.now() / DAY) * DAY - DAY + 11.5 * 3_600_000);
    const w = windowsOf(now);
    const at = [
      w.today,
      new Date(w.today.getTime() - 1),
      new Date(now.getTime() + 5_000),
      ...[w.d7, w.d30].flatMap((from) => {
        const midnight = Math.floor(from.getTime() / DAY) * DAY;
        return [
          from,
          new Date(from.getTime() - 1),
          new Date(from.getTime() + 1),
          new Date(midnight),
          new Date(midnight - 1),
          new Date(midnight + DAY),
          new Date(midnight + DAY - 1),
        ];
      }),
    ];
    for (const [i, createdAt] of at.entries()) {
      await seedOrder(knex, edge, product, {
        status: i % 2 ? ORDER_STATUS.IN_PROGRESS : ORDER_STATUS.COMPLETED,
        totalMinor: 100 + i,
        createdAt,
      });
    }
    await expectExact(edge, now);
    const stats = await storeStatistics(knex, edge, now);
    // The window's first instant is in, the millisecond before is out.
    expect(stats.sales.last_7_days.orders).to.be.greaterThan(0);
    expect(stats.sales.last_30_days.orders).to.be.greaterThan(stats.sales.last_7_days.orders);
  });

  it('drops the deltas of a deleted store when compacting', async () => {
    const gone = await createStore();
    await seedOrder(knex, gone, await createProduct(gone), { status: 3 });
    await knex('stores').where('id', gone.id).delete();
    await compactOrderRollups(knex);
    expect(await countStoreOrders(knex, gone.id)).to.equal(0);
    expect(await knex('order_figure_deltas').where('store_id', gone.id)).to.deep.equal([]);
    await expectExact();
  });
});
