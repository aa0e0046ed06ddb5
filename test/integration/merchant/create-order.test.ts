import { expect } from 'chai';
import { Product } from '../../../db/models';
import { createPaymentMethod, createProduct } from '../../helpers/builders';
import { call, expectEnvelope, merchantStore, MerchantStore, useMerchantSuite } from './support';

const BUYER = {
  quantity: 1,
  customer_first_name: 'Noura',
  customer_last_name: 'Saleh',
  customer_email: 'noura@example.com',
  customer_phone: '500000321',
  customer_country_code: '966',
};

/**
 * POST /shawarma/orders (docs/operations.md): a zero total creates the order, anything else a checkout
 * with a payment link; the same content within 5 minutes answers the same ids and creates nothing, also
 * under 10 simultaneous requests; Idempotency-Key works as Stripe's.
 */
describe('Merchant API: POST /orders, idempotent', function () {
  this.timeout(30_000);
  const suite = useMerchantSuite();
  let m: MerchantStore;
  let paid: Product;
  let free: Product;

  before(async () => {
    m = await merchantStore();
    await createPaymentMethod(m.store, { method: 'card', provider: 'sandbox' });
    paid = await createProduct(m.store, {
      price_minor: 4_000,
      fields: [{ type: 'text', label: 'Player name', required: true }],
    });
    free = await createProduct(m.store, { price_minor: 0 });
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    call(suite.server, m.token, 'POST', '/shawarma/orders', body, headers);
  const count = async (table: string) =>
    Number(
      (await suite.deps.knex(table).where('store_id', m.store.id).count<{ n: number }[]>('* as n'))[0]!.n,
    );

  it('a zero total creates the order (201, data.order_id, the id GET /orders/{id} shows); again: same id, nothing new', async () => {
    const body = { ...BUYER, product_id: free.id, customer_note: 'gift' };
    const first = await post(body);
    expectEnvelope(first, 201);
    const orderId = (first.body.data as { order_id: number }).order_id;
    expect(orderId).to.be.a('number');
    expect(first.body.data).to.deep.include({ type: 'free_order', payment_url: null, amount: '0.00' });
    const detail = await call(suite.server, m.token, 'GET', `/shawarma/orders/${orderId}`);
    expectEnvelope(detail, 200);
    expect(detail.body.data).to.deep.include({
      id: orderId,
      status: 3,
      total: '0.00',
      source: 'merchant',
      customer_note: 'gift',
    });
    expect((detail.body.data as { items: unknown[] }).items[0]).to.deep.include({
      product_id: free.id,
      quantity: 1,
    });

    const orders = await count('orders');
    const again = await post(body);
    expectEnvelope(again, 200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(await count('orders')).to.equal(orders);
  });

  it('a paid total opens a checkout: data.checkout_url and data.payment_url; the same body again answers the same', async () => {
    const body = { ...BUYER, product_id: paid.id, fields: { 0: 'Hero' } };
    const first = await post(body);
    expectEnvelope(first, 201);
    const data = first.body.data as {
      checkout_url: string;
      payment_url: string;
      order_id: null;
      amount: string;
    };
    expect(data.order_id).to.equal(null);
    expect(data.amount).to.equal('40.00');
    expect(data.payment_url).to.equal(`http://localhost:3999/pay/${encodeURIComponent(data.checkout_url)}`);
    const checkouts = await count('checkouts');
    // Same content, keys in another order: the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await post(reordered);
    expectEnvelope(again, 200);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(await count('checkouts')).to.equal(checkouts);
    const row = await suite.deps
      .knex('checkouts')
      .where('store_id', m.store.id)
      .orderBy('id', 'desc')
      .first();
    expect(row).to.deep.include({ source: 'merchant', total_minor: 4_000, customer_phone: '500000321' });
    // The stored answer holds the checkout_url encrypted only.
    const records = await suite.deps.knex('idempotency_records').where('store_id', m.store.id);
    expect(JSON.stringify(records)).to.not.contain(data.checkout_url);
  });

  it('10 simultaneous identical requests create exactly one checkout and all answer its ids', async () => {
    const before = await count('checkouts');
    const body = { ...BUYER, product_id: paid.id, quantity: 2, fields: { 0: 'Tenfold' } };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body)));
    for (const res of answers) expect([200, 201], res.text).to.include(res.status);
    expect(answers.filter((r) => r.status === 201)).to.have.length(1);
    const urls = new Set(answers.map((r) => (r.body.data as { checkout_url: string }).checkout_url));
    expect(urls.size).to.equal(1);
    expect(await count('checkouts')).to.equal(before + 1);
  });

  it('10 simultaneous free orders with one content: exactly one order', async () => {
    const before = await count('orders');
    const body = { ...BUYER, product_id: free.id, customer_email: 'ten@example.com' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(body)));
    const ids = new Set(answers.map((r) => (r.body.data as { order_id: number }).order_id));
    expect(ids.size).to.equal(1);
    expect(await count('orders')).to.equal(before + 1);
  });

  it('Idempotency-Key: same key and body replays (also 10 at once), same key with another body is 409, two keys are two orders', async () => {
    const body = { ...BUYER, product_id: paid.id, fields: { 0: 'Keyed' } };
    const before = await count('checkouts');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(body, { 'Idempotency-Key': 'order-7781' })),
    );
    expect(new Set(answers.map((r) => (r.body.data as { checkout_url: string }).checkout_url)).size).to.equal(
      1,
    );
    expect(await count('checkouts')).to.equal(before + 1);

    const other = await post({ ...body, quantity: 3 }, { 'Idempotency-Key': 'order-7781' });
    expectEnvelope(other, 409);
    expect(other.body.message).to.match(/different request body/);

    const second = await post(body, { 'Idempotency-Key': 'order-7782' });
    expectEnvelope(second, 201);
    expect(await count('checkouts')).to.equal(before + 2);
  });

  it('after 5 minutes the same content creates again; a failed creation is not remembered', async () => {
    const body = { ...BUYER, product_id: paid.id, fields: { 0: 'Later' } };
    const first = await post(body);
    expectEnvelope(first, 201);
    await suite.deps
      .knex('idempotency_records')
      .where('store_id', m.store.id)
      .update({ expires_at: new Date(Date.now() - 1_000) });
    const later = await post(body);
    expectEnvelope(later, 201);
    expect((later.body.data as { checkout_url: string }).checkout_url).to.not.equal(
      (first.body.data as { checkout_url: string }).checkout_url,
    );

    const scarce = await createProduct(m.store, { price_minor: 1_000, stock: 0 });
    const out = { ...BUYER, product_id: scarce.id };
    const refused = await post(out);
    expectEnvelope(refused, 400);
    expect(refused.body.message).to.equal('Insufficient stock');
    await suite.deps.knex('products').where('id', scarce.id).update({ stock: 1 });
    expectEnvelope(await post(out), 201);
  });

  it('the guest checkout rules apply: required fields, coupon, invalid product', async () => {
    const missing = await post({ ...BUYER, product_id: paid.id });
    expectEnvelope(missing, 422);
    expect(missing.body.errors).to.have.property('fields.0');
    const coupon = await post({ ...BUYER, product_id: paid.id, fields: { 0: 'x' }, coupon_code: 'NOPE' });
    expectEnvelope(coupon, 400);
    const noProduct = await post({ ...BUYER, product_id: 2_000_000_000 });
    expectEnvelope(noProduct, 422);
  });
});
