import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
import { usePaymentsSuite } from '../payments/support';
import { wiringStore, type Wiring } from './support';

/**
 * POST /api/embed/apply-coupon answers a creator’s code as the checkout reads a `coupon_code` (docs/growth.md,
 * "Creator codes"): its buyer discount, or accepted with none; a coupon of the store keeps precedence.
 */
describe('wiring: apply-coupon: a creator’s code', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let w: Wiring;

  before(async () => {
    w = await wiringStore(suite, 'apply-coupon-creator');
  });

  it('answers a creator’s code on apply-coupon as the checkout reads it: its discount, or zero', async () => {
    await w.newCreator({ name: 'Lama', code: 'LAMA42', discount_percent: '12.5' });
    await w.newCreator({ name: 'Omar', code: 'OMAR42' });
    const apply = (code: string, quantity = 2) =>
      suite.server.request('/api/embed/apply-coupon', {
        method: 'POST',
        json: { code, product_id: w.m.products.guide!.id, quantity },
        headers: { 'X-Embed-Key': w.embedKey, 'X-Forwarded-For': randomIp() },
      });
    const lama = await apply('lama42');
    expect(lama.status, lama.text).to.equal(200);
    // 12.5% of 2 × 80.00 = 20.00, as the checkout charges.
    expect(lama.body.data).to.deep.equal({
      coupon_id: null,
      code: 'LAMA42',
      type: 'percentage',
      amount: 12.5,
      discount_amount: 20,
      payment_restrictions: [],
      creator: true,
    });
    const checkout = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: w.m.products.guide!.id,
        quantity: 2,
        coupon_code: 'lama42',
        customer_first_name: 'Salem',
        customer_last_name: 'Ali',
        customer_email: 'lama-buyer@w42.test',
        customer_country_code: '966',
        customer_phone: '594800021',
      },
      headers: { 'X-Embed-Key': w.embedKey, 'X-Forwarded-For': randomIp() },
    });
    expect(checkout.status, checkout.text).to.equal(200);
    expect((checkout.body.data as { discount_amount: string }).discount_amount).to.equal('20.00');

    const omar = await apply('OMAR42');
    expect(omar.status, omar.text).to.equal(200);
    expect(omar.body.data).to.include({ coupon_id: null, code: 'OMAR42', amount: 0, discount_amount: 0 });
    expect(omar.body.data).to.include({ creator: true });

    // A real coupon is still the coupon; an unknown code is still refused.
    const coupon = await apply('w42coupon');
    expect(coupon.status, coupon.text).to.equal(200);
    expect(coupon.body.data).to.include({ code: 'W42COUPON', discount_amount: 16, creator: false });
    expect((coupon.body.data as { coupon_id: number }).coupon_id).to.be.a('number');
    const unknown = await apply('NOSUCH42');
    expect(unknown.status, unknown.text).to.equal(400);
    expect(unknown.body.message).to.equal('Invalid coupon');
  });
});
