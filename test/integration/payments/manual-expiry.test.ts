import { expect } from 'chai';
import { ORDER_STATUS, Order, Payment, Product, Store } from '../../../db/models';
import { expireManualOrders } from '../../../shared/services/payments/manual-expiry';
import { maintenanceContext, maintenanceRunner } from '../../../shared/services/maintenance';
import { MAINTENANCE_SCHEDULE } from '../../../shared/scheduler';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { createCoupon } from '../checkout/support';
import { guestCheckout } from '../../helpers/checkouts';
import { browse, guestInitiate, usePaymentsSuite } from './support';

const BANK = {
  bank_name: 'Acme Bank',
  account_name: 'Acme LLC',
  account_number: '0001',
  iban: 'SA0000000000000000000001',
};
const DAY = 86_400_000;

/**
 * A bank transfer or manual PayPal order holds its keys, stock and coupon use while it waits for the
 * money; after the store's deadline (manual_payment_days, default 3) the expire-manual-orders task
 * cancels it and gives them back. The buyer reads the deadline on the payment page.
 */
describe('Manual-payment orders expire after the store’s deadline', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let keys: Product;
  let boxed: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Keys & Co', currency: 'SAR' });
    await createPaymentMethod(store, { method: 'bank', provider: 'bank', settings: BANK });
    await createPaymentMethod(store, {
      method: 'paypal',
      provider: 'paypal',
      settings: { email: 'pay@keys.test' },
    });
    keys = await createProduct(store, { name: 'Gift card', type: 'code', price_minor: 4_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: keys.id, code: `GIFT-${store.id}-A` },
      { product_id: keys.id, code: `GIFT-${store.id}-B` },
    ]);
    boxed = await createProduct(store, { name: 'Boxed', price_minor: 3_000, stock: 5 });
  });

  /** A guest checkout paid by `method` (bank or paypal): the order under review. */
  async function manualOrder(product: Product, method: 'bank' | 'paypal', quantity: number, coupon?: string) {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id, quantity, ...(coupon ? { coupon_code: coupon } : {}) },
      { customer_phone: '500000411' },
    );
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, method);
    expect(res.status, res.text).to.equal(200);
    const order = await Order.query().findOne({ checkout_id: checkout.checkoutId });
    expect(order!.status).to.equal(ORDER_STATUS.UNDER_REVIEW);
    return { checkout, order: order! };
  }

  const available = async () =>
    Number(
      (
        await suite.deps
          .knex('product_codes')
          .where({ product_id: keys.id, status: 'available' })
          .count<{ n: string }[]>('* as n')
      )[0]!.n,
    );
  const stock = async () => (await Product.query().findById(boxed.id))!.stock;

  it('tells the buyer the deadline on the payment page, in English and Arabic', async () => {
    const { checkout, order } = await manualOrder(keys, 'bank', 1);
    const en = await browse(suite.server, `${checkout.paymentUrl}?lang=en`);
    expect(en.text).to.contain('Please pay within 3 days');
    const year = new Date(order.created_at.getTime() + 3 * DAY).getUTCFullYear();
    expect(en.text).to.contain(String(year));
    const ar = await browse(suite.server, `${checkout.paymentUrl}?lang=ar`);
    expect(ar.text).to.contain('يرجى الدفع خلال 3 أيام');
  });

  it('releases keys, stock and the coupon use once the deadline has passed; a second run changes nothing', async () => {
    const coupon = await createCoupon(store, { code: 'TENOFF', max_uses: 1 });
    // The merchant hears of each expiry through its order.status_changed webhook.
    await suite.deps.knex('merchant_webhook_endpoints').insert({
      store_id: store.id,
      url: 'https://hooks.keys.test/matjar',
      events: ['order.status_changed'],
      secret_encrypted: suite.deps.cipher.encrypt('whsec_keys'),
    });
    await suite.deps.knex('stores').where('id', store.id).update({ manual_payment_days: 2 });
    const bank = await manualOrder(keys, 'bank', 2, 'TENOFF');
    const paypal = await manualOrder(boxed, 'paypal', 3);
    expect(await available()).to.equal(0);
    expect(await stock()).to.equal(2);
    expect((await suite.deps.knex('coupons').where('id', coupon.id).first()).uses_count).to.equal(1);

    // Before the deadline (2 days): nothing moves.
    const early = await expireManualOrders(
      suite.deps.knex,
      new Date(Date.now() + 2 * DAY - 60_000),
      suite.deps,
    );
    expect(early.expired).to.equal(0);

    const later = new Date(Date.now() + 2 * DAY + 60_000);
    const first = await expireManualOrders(suite.deps.knex, later, suite.deps);
    expect(first).to.deep.equal({ expired: 2, releasedCodes: 2, releasedStock: 3, releasedCouponUses: 1 });
    expect(await available()).to.equal(2);
    expect(await stock()).to.equal(5);
    expect((await suite.deps.knex('coupons').where('id', coupon.id).first()).uses_count).to.equal(0);
    for (const { order } of [bank, paypal]) {
      const now = await Order.query().findById(order.id);
      expect(now!.status).to.equal(ORDER_STATUS.CANCELLED);
      expect((await Payment.query().findById(order.payment_id!))!.status).to.equal('expired');
      const audit = await suite.deps.knex('order_status_events').where('order_id', order.id);
      expect(audit.map((a) => [a.from_status, a.to_status, a.source])).to.deep.equal([[2, 5, 'system']]);
    }
    const sent = await suite.deps
      .knex('merchant_webhook_deliveries')
      .where({ store_id: store.id, event_type: 'order.status_changed' });
    expect(sent.map((d) => d.payload.data)).to.have.deep.members(
      [bank, paypal].map(({ order }) => ({
        order_id: order.id,
        from: 2,
        to: 5,
        status_label: 'Cancelled',
        reason: 'manual_payment_deadline',
      })),
    );
    // The coupon can be used again: its one use came back.
    const again = await guestCheckout(suite.server, store, { product_id: keys.id, coupon_code: 'TENOFF' });
    expect(again.amount).to.equal('36.00');

    const second = await expireManualOrders(suite.deps.knex, later, suite.deps);
    expect(second).to.deep.equal({ expired: 0, releasedCodes: 0, releasedStock: 0, releasedCouponUses: 0 });
    expect(await stock()).to.equal(5);

    // The payment page says the time is over instead of showing the bank details.
    const page = await browse(suite.server, `${bank.checkout.paymentUrl}?lang=en`);
    expect(page.text).to.contain('The time to pay for this order has passed');
    expect(page.text).to.not.contain(BANK.iban);
  });

  it('expires each order once when runs overlap (5 at once), and leaves a confirmed order alone', async () => {
    const orders = [];
    for (let i = 0; i < 2; i += 1) orders.push(await manualOrder(boxed, 'bank', 2));
    const confirmed = await manualOrder(keys, 'paypal', 1);
    await suite.deps
      .knex('orders')
      .where('id', confirmed.order.id)
      .update({ status: ORDER_STATUS.IN_PROGRESS });
    expect(await stock()).to.equal(1);

    const later = new Date(Date.now() + 4 * DAY);
    // (Other tests' orders in this database may be due too: what is checked is this store's own.)
    await Promise.all(
      Array.from({ length: 5 }, () => expireManualOrders(suite.deps.knex, later, suite.deps)),
    );
    for (const { order } of orders) {
      expect((await Order.query().findById(order.id))!.status).to.equal(ORDER_STATUS.CANCELLED);
      const audit = await suite.deps.knex('order_status_events').where('order_id', order.id);
      expect(audit, 'expired exactly once').to.have.length(1);
    }
    expect(await stock(), 'each order’s units given back once').to.equal(5);
    expect((await Order.query().findById(confirmed.order.id))!.status).to.equal(ORDER_STATUS.IN_PROGRESS);
    expect(await available()).to.equal(1);
  });

  it('is a maintenance task the scheduler enqueues, run with the worker’s deps', async () => {
    const run = maintenanceRunner('expire-manual-orders')!;
    const result = await run(suite.deps.knex, new Date(), maintenanceContext(suite.deps));
    expect(result).to.have.keys(['expired', 'releasedCodes', 'releasedStock', 'releasedCouponUses']);
    expect(MAINTENANCE_SCHEDULE.map((e) => e.task)).to.include('expire-manual-orders');
  });
});
