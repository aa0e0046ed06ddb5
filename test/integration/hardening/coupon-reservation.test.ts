import { expect } from 'chai';
import { Coupon, Order, Product, Store } from '../../../db/models';
import { expireCheckouts } from '../../../shared/services/maintenance';
import { createProduct, createStore } from '../../helpers/builders';
import { GUEST_BUYER } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { createCoupon } from '../checkout/support';
import {
  browse,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
} from '../payments/support';

/**
 * A coupon use is reserved at checkout like stock, decided by Postgres, so simultaneous
 * checkouts can never hand out more discounts than `max_uses`, whatever is paid afterwards.
 */
describe('coupon uses are reserved at checkout', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore();
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { price_minor: 5_000 });
  });

  function checkoutWith(code: string, phone: string) {
    return suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        ...GUEST_BUYER,
        customer_phone: phone,
        product_id: product.id,
        quantity: 1,
        coupon_code: code,
      },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
  }

  /** Pays a checkout through the sandbox's page, as a customer would, and waits for its order. */
  async function payThroughSandbox(checkoutUrl: string, checkoutId: number): Promise<Order> {
    const initiated = await guestInitiate(suite.server, store, checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    const paymentId = paymentIdOf((initiated.body.data as { redirect_url: string }).redirect_url);
    const session = await sessionOf(paymentId, 30_000);
    const chosen = await browse(suite.server, `/sandbox/checkout/${session.provider_payment_id}`, {
      outcome: 'paid',
    });
    expect(chosen.status, chosen.text).to.equal(303);
    return orderOf(checkoutId, 30_000);
  }

  it('50 simultaneous checkouts against max_uses 3 end in at most 3 discounted orders', async () => {
    const coupon = await createCoupon(store, { type: 'percentage', amount: 1_000, max_uses: 3 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => checkoutWith(coupon.code, `5000${String(70000 + i)}`)),
    );
    const opened = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(opened.length, 'checkouts that got the discount').to.be.at.most(3);
    for (const r of refused) {
      expect(r.status, r.text).to.equal(400);
      expect(r.body).to.deep.include({ success: false, message: 'Coupon has reached maximum uses' });
    }
    // Every checkout that did open is paid through the sandbox.
    const orders = await Promise.all(
      opened.map((a) => {
        const data = a.body.data as { checkout_url: string; checkout_id: number; discount_amount: string };
        expect(data.discount_amount).to.equal('5.00');
        return payThroughSandbox(data.checkout_url, data.checkout_id);
      }),
    );
    const discounted = await Order.query().where('coupon_id', coupon.id).where('discount_minor', '>', 0);
    expect(discounted.length).to.equal(orders.length).and.to.be.at.most(3);
    const after = await Coupon.query().findById(coupon.id);
    expect(after?.uses_count).to.equal(orders.length);
    expect(after?.reserved_uses, 'every reservation consumed').to.equal(0);
  });

  it('holds a use while the checkout is open and gives it back when the checkout expires', async () => {
    const coupon = await createCoupon(store, { type: 'fixed', amount: 500, max_uses: 1 });
    const first = await checkoutWith(coupon.code, '500080001');
    expect(first.status, first.text).to.equal(200);
    const held = await checkoutWith(coupon.code, '500080002');
    expect(held.status).to.equal(400);
    expect(held.body.message).to.equal('Coupon has reached maximum uses');
    const apply = await suite.server.request('/api/embed/apply-coupon', {
      method: 'POST',
      json: { code: coupon.code, product_id: product.id, quantity: 1 },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(apply.status, 'apply-coupon counts held uses too').to.equal(400);

    const { checkout_id: checkoutId } = first.body.data as { checkout_id: number };
    await suite.deps
      .knex('checkouts')
      .where('id', checkoutId)
      .update({ expires_at: new Date(Date.now() - 1000) });
    const result = await expireCheckouts(suite.deps.knex, undefined, suite.deps);
    expect(result.releasedCouponUses).to.be.at.least(1);
    expect((await Coupon.query().findById(coupon.id))?.reserved_uses).to.equal(0);

    const again = await checkoutWith(coupon.code, '500080003');
    expect(again.status, again.text).to.equal(200);
  });
});
