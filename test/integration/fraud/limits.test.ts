import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { randomIp } from '../../helpers/otp';
import { hostedMethod, usePaymentsSuite } from '../payments/support';
import { buyer, expectBlocked, setFraudSettings } from './support';

/**
 * Limits (docs/fraud.md, "Limits"): orders per buyer per day, units of one product per buyer per day, and
 * the value a new buyer may buy in a day. Counted in the checkout's transaction under the buyer's advisory
 * lock, with the buyer's live unpaid checkouts holding their place: ten simultaneous checkouts of one buyer
 * cannot pass a limit of two, whichever path they take.
 */
describe('fraud controls: daily limits, under concurrency', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite({ workers: false });
  let store: Store;
  let product: Product;
  let other: Product;
  let domain: string;

  beforeEach(async () => {
    domain = `shop-${crypto.randomBytes(4).toString('hex')}.i43.test`;
    store = await createStore({ domains: [domain] });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { price_minor: 2_500, max_per_order: 10 });
    other = await createProduct(store, { price_minor: 1_000, max_per_order: 10 });
  });

  const embed = (who: Record<string, string>, json: Record<string, unknown> = {}) =>
    suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { product_id: product.id, quantity: 1, ...who, ...json },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });

  const storefront = async (who: Record<string, string>) => {
    const ip = randomIp();
    const added = await suite.server.request('/api/cart/add', {
      method: 'POST',
      json: { product_id: product.id },
      headers: { Host: domain, 'X-Forwarded-For': ip },
    });
    const cartId = (added.body.data as { cart_id: string }).cart_id;
    return suite.server.request('/api/checkout', {
      method: 'POST',
      json: who,
      headers: { Host: domain, 'X-Forwarded-For': ip, 'X-Cart-Id': cartId },
    });
  };

  const merchant = async (who: Record<string, string>, note: string) =>
    suite.server.request('/shawarma/orders', {
      method: 'POST',
      // A note of its own per request: the same content within 5 minutes is one idempotent request.
      json: { product_id: product.id, quantity: 1, ...who, customer_note: note },
      headers: { Authorization: `Bearer ${await merchantToken(store)}` },
    });

  const openCheckouts = async () =>
    Number(
      (await suite.deps.knex('checkouts').where('store_id', store.id).count<{ n: string }[]>('* as n'))[0]!.n,
    );

  it('ten simultaneous Embed checkouts of one buyer pass a limit of two exactly twice', async () => {
    await setFraudSettings(suite.server, store, { max_orders_per_buyer_per_day: 2 });
    const who = buyer();
    const answers = await Promise.all(Array.from({ length: 10 }, () => embed(who)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 200, 403, 403, 403, 403, 403, 403, 403, 403]);
    for (const a of answers.filter((x) => x.status === 403)) expectBlocked(a);
    expect(await openCheckouts()).to.equal(2);
    const rules = await suite.deps.knex('checkout_refusals').where('store_id', store.id).pluck('rule');
    expect(rules).to.have.length(8);
    expect(new Set(rules)).to.deep.equal(new Set(['max_orders_per_buyer_per_day']));
  });

  it('one buyer across the Embed, the Storefront and the Merchant API at once; by phone or by e-mail', async () => {
    await setFraudSettings(suite.server, store, { max_orders_per_buyer_per_day: 2 });
    const who = buyer();
    // The same phone under another e-mail is the same buyer.
    const samePhone = { ...who, customer_email: `alt-${who.customer_email}` };
    const answers = await Promise.all([
      ...Array.from({ length: 3 }, () => embed(samePhone)),
      ...Array.from({ length: 3 }, () => storefront(who)),
      ...Array.from({ length: 4 }, (_, i) => merchant(who, `n${i}`)),
    ]);
    expect(answers.filter((a) => a.status === 200 || a.status === 201)).to.have.length(2);
    for (const a of answers.filter((x) => x.status !== 200 && x.status !== 201)) expectBlocked(a);
    expect(await openCheckouts()).to.equal(2);

    // The same e-mail under another phone is the same buyer too.
    const second = buyer();
    expect((await embed(second)).status).to.equal(200);
    expect((await embed(second)).status).to.equal(200);
    expectBlocked(await embed({ ...buyer(), customer_email: second.customer_email.toUpperCase() }));
    // Another buyer is not held by their limit.
    expect((await embed(buyer())).status).to.equal(200);
  });

  it('units of one product per buyer per day: simultaneous checkouts of 3 units each under a limit of 5', async () => {
    await setFraudSettings(suite.server, store, { max_units_per_product_per_day: 5 });
    const who = buyer();
    const answers = await Promise.all(Array.from({ length: 6 }, () => embed(who, { quantity: 3 })));
    expect(answers.filter((a) => a.status === 200)).to.have.length(1);
    // 2 more units fit; a third does not; another product has a count of its own.
    expect((await embed(who, { quantity: 2 })).status).to.equal(200);
    expectBlocked(await embed(who, { quantity: 1 }));
    expect((await embed(who, { product_id: other.id, quantity: 5 })).status).to.equal(200);
    const matched = await suite.deps
      .knex('checkout_refusals')
      .where('store_id', store.id)
      .distinct('matched')
      .pluck('matched');
    expect(matched).to.deep.equal([`5 (product ${product.id})`]);
  });

  it('a new buyer’s daily value: 60.00 allows two of 25.00, not a third, also at once', async () => {
    await setFraudSettings(suite.server, store, { new_buyer_daily_limit: '60.00' });
    const who = buyer();
    const answers = await Promise.all(Array.from({ length: 5 }, () => embed(who)));
    expect(answers.filter((a) => a.status === 200)).to.have.length(2);
    expectBlocked(answers.find((a) => a.status !== 200)!);
    // A buyer who has bought here before (a paid order older than a day) is not new.
    const regular = buyer();
    const [order] = await suite.deps
      .knex('orders')
      .insert({
        store_id: store.id,
        status: 4,
        customer_first_name: 'R',
        customer_last_name: 'B',
        customer_email: regular.customer_email,
        customer_country_code: '966',
        customer_phone: regular.customer_phone,
        subtotal_minor: 1000,
        total_minor: 1000,
        currency: 'SAR',
        created_at: new Date(Date.now() - 3 * 86_400_000),
      })
      .returning('id');
    expect(order).to.not.equal(undefined);
    const many = await Promise.all(Array.from({ length: 4 }, () => embed(regular)));
    expect(many.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
  });

  it('off by default and with null: no limit holds', async () => {
    const who = buyer();
    const answers = await Promise.all(Array.from({ length: 4 }, () => embed(who)));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
    await setFraudSettings(suite.server, store, { max_orders_per_buyer_per_day: 1 });
    expectBlocked(await embed(who));
    await setFraudSettings(suite.server, store, { max_orders_per_buyer_per_day: null });
    expect((await embed(who)).status).to.equal(200);
  });
});
