import { expect } from 'chai';
import { Order, Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import {
  CheckoutSuite,
  createCoupon,
  dataOf,
  EmbedCaller,
  embedCaller,
  storeSuite,
} from '../checkout/support';

/** Per-store order numbers (docs/dashboard.md, "Order numbers"), under real simultaneous requests. */

const GUEST_PATH = '/api/embed/guest/checkout';
const BUYER = {
  customer_first_name: 'Huda',
  customer_last_name: 'Numbers',
  customer_email: 'huda@i40.test',
  customer_phone: '594000101',
  customer_country_code: '966',
};

describe('Per-store order numbers', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;

  before(async () => {
    ({ suite, store, api } = await storeSuite({ paymentMethod: {} }));
  });
  after(() => suite.close());

  it('numbers a store’s orders 1, 2, 3… with no duplicate and no gap when 30 of 40 simultaneous orders roll back', async () => {
    const other = await createStore();
    const otherApi = embedCaller(suite.server, other);
    const product = await createProduct(store, { price_minor: 2500 });
    const otherProduct = await createProduct(other, { price_minor: 0 });
    // 10 uses left: 10 free orders are made; 30 insert their order, then find the coupon used up and roll back.
    await createCoupon(store, { code: 'NUMBERS', amount: 10_000, max_uses: 10, uses_count: 0 });

    const results = await Promise.all([
      ...Array.from({ length: 40 }, (_, i) =>
        api.post(GUEST_PATH, {
          ...BUYER,
          customer_phone: `5940001${String(i).padStart(2, '0')}`,
          product_id: product.id,
          quantity: 1,
          coupon_code: 'NUMBERS',
        }),
      ),
      // Another store's orders at the same moment count on their own.
      ...Array.from({ length: 5 }, (_, i) =>
        otherApi.post(GUEST_PATH, {
          ...BUYER,
          customer_phone: `5940002${String(i).padStart(2, '0')}`,
          product_id: otherProduct.id,
          quantity: 1,
        }),
      ),
    ]);
    const won = results.slice(0, 40).filter((r) => r.status === 200);
    expect(won).to.have.length(10);
    for (const r of won) expect(dataOf(r).type).to.equal('free_order');
    for (const r of results.slice(40)) expect(r.status, r.text).to.equal(200);

    const mine = await Order.query().where({ store_id: store.id }).orderBy('number');
    expect(mine.map((o) => o.number)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const theirs = await Order.query().where({ store_id: other.id }).orderBy('number');
    expect(theirs.map((o) => o.number)).to.deep.equal([1, 2, 3, 4, 5]);
    // order_id stays the platform-wide id: two stores' first orders have different ids.
    expect(theirs[0]!.id).to.not.equal(mine[0]!.id);
  });

  it('numbers many orders of one statement, gives back a rolled back savepoint’s numbers, and goes on after commit', async () => {
    const fresh = await createStore();
    const row = (phone: string) => ({
      store_id: fresh.id,
      status: 1,
      customer_first_name: 'Batch',
      customer_last_name: 'Numbers',
      customer_email: 'batch@i40.test',
      customer_country_code: '966',
      customer_phone: phone,
      subtotal_minor: 100,
      total_minor: 100,
      currency: 'SAR',
    });
    await suite.deps.knex.transaction(async (trx) => {
      const many = await trx('orders')
        .insert([row('594000111'), row('594000112'), row('594000113')])
        .returning('number');
      expect(many.map((r: { number: number }) => r.number)).to.deep.equal([1, 2, 3]);
      try {
        await trx.transaction(async (inner) => {
          await inner('orders').insert(row('594000114'));
          throw new Error('rolled back');
        });
      } catch (err) {
        expect((err as Error).message).to.equal('rolled back');
      }
      const [next] = await trx('orders').insert(row('594000115')).returning('number');
      expect((next as { number: number }).number).to.equal(4);
    });
    const [after] = await suite.deps.knex('orders').insert(row('594000116')).returning('number');
    expect((after as { number: number }).number).to.equal(5);
    const counter = await suite.deps.knex('store_order_counters').where('store_id', fresh.id).first();
    expect(counter.last_number).to.equal(5);
  });

  it('the database refuses a second order with a store’s number taken', async () => {
    const second = await Order.query().where({ store_id: store.id, number: 2 }).first();
    let refused: unknown = null;
    try {
      await suite.deps.knex('orders').where({ id: second!.id }).update({ number: 1 });
    } catch (err) {
      refused = err;
    }
    expect(String((refused as Error | null)?.message)).to.contain('orders_store_number_unique');
  });

  it('the Merchant API’s order list and order carry the store’s number beside the platform-wide id', async () => {
    const token = await merchantToken(store);
    const list = await suite.server.request('/shawarma/orders?per_page=50', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(list.status, list.text).to.equal(200);
    const rows = (list.body.data as { data: { id: number; number: number }[] }).data;
    expect(rows.map((r) => r.number).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const one = rows.find((r) => r.number === 1)!;
    const detail = await suite.server.request(`/shawarma/orders/${one.id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(detail.status, detail.text).to.equal(200);
    const order = (detail.body.data as { data?: { id: number; number: number } }).data ?? detail.body.data;
    expect(order).to.include({ id: one.id, number: 1 });
  });
});
