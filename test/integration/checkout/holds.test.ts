import { expect } from 'chai';
import { Checkout, Product } from '../../../db/models';
import { HOLDS_MESSAGE } from '../../../shared/services/checkout/holds';
import { createProduct, merchantToken } from '../../helpers/builders';
import { randomIp } from '../../helpers/otp';
import { GUEST, storeSuite, StoreSuite } from './support';

/**
 * Unpaid checkouts that hold keys, stock or coupon uses are capped per store and client IP and per buyer
 * phone (CHECKOUT_HOLDS_PER_IP / _PER_PHONE): one client cannot lock a store's stock up by opening
 * checkouts and never paying. Here the caps are 3 per IP and 2 per phone.
 */
describe('Unpaid checkouts holding stock: caps per IP and per phone', function () {
  this.timeout(30_000);
  let s: StoreSuite;
  let stocked: Product;

  before(async () => {
    s = await storeSuite({
      env: { CHECKOUT_HOLDS_PER_IP: '3', CHECKOUT_HOLDS_PER_PHONE: '2' },
      paymentMethod: { method: 'card', provider: 'sandbox' },
    });
    stocked = await createProduct(s.store, { stock: 100 });
  });
  after(() => s.suite.close());

  const guest = (phone: string, ip = randomIp(), productId = stocked.id) =>
    s.suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { ...GUEST, customer_phone: phone, product_id: productId, quantity: 1 },
      headers: { 'X-Embed-Key': s.store.embed_key, 'X-Forwarded-For': ip },
    });
  const stockLeft = async () => (await Product.query().findById(stocked.id))!.stock;

  it('refuses a third holding checkout for one phone with 429 and retry_after; another phone goes on', async () => {
    const before = await stockLeft();
    expect((await guest('500000801')).status).to.equal(200);
    expect((await guest('500000801')).status).to.equal(200);
    const third = await guest('500000801');
    expect(third.status, third.text).to.equal(429);
    expect(third.body).to.include({
      success: false,
      error_code: 'RATE_LIMIT_EXCEEDED',
      message: HOLDS_MESSAGE.phone,
    });
    expect(third.body.retry_after).to.be.a('number').within(1, 3600);
    expect(await stockLeft(), 'the refused checkout holds nothing').to.equal(before! - 2);
    expect((await guest('500000802')).status).to.equal(200);

    // Once one of them is no longer held (expired), the phone may open another.
    const held = await Checkout.query().where({ store_id: s.store.id, customer_phone: '500000801' }).first();
    await Checkout.query()
      .patch({ expires_at: new Date(Date.now() - 1000) })
      .where('id', held!.id);
    expect((await guest('500000801')).status).to.equal(200);
  });

  it('refuses a fourth holding checkout from one client IP, whatever the phones', async () => {
    const ip = randomIp();
    const statuses = [];
    for (const phone of ['500000811', '500000812', '500000813', '500000814']) {
      statuses.push((await guest(phone, ip)).status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });

  it('lets exactly 2 of 10 simultaneous checkouts of one phone hold stock', async () => {
    const before = await stockLeft();
    const answers = await Promise.all(Array.from({ length: 10 }, () => guest('500000821')));
    expect(answers.filter((a) => a.status === 200)).to.have.length(2);
    expect(answers.filter((a) => a.status === 429)).to.have.length(8);
    expect(await stockLeft()).to.equal(before! - 2);
  });

  it('does not count checkouts that hold nothing, nor orders a merchant opens', async () => {
    const unlimited = await createProduct(s.store, { stock: null });
    for (let i = 0; i < 4; i += 1) {
      expect((await guest('500000831', randomIp(), unlimited.id)).status).to.equal(200);
    }
    const token = await merchantToken(s.store);
    for (let i = 0; i < 3; i += 1) {
      const res = await s.suite.server.request('/shawarma/orders', {
        method: 'POST',
        json: {
          ...GUEST,
          customer_phone: '500000832',
          product_id: stocked.id,
          quantity: 1,
          customer_note: `n${i}`,
        },
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status, res.text).to.equal(201);
    }
  });
});
