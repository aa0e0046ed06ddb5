import { expect } from 'chai';
import { Checkout, ORDER_STATUS, Order, Payment, PaymentEvent, Product, Store } from '../../../db/models';
import { createCustomer, createProduct, createStore, customerToken } from '../../helpers/builders';
import { guestCheckout, insertCheckout } from '../../helpers/checkouts';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { randomIp } from '../../helpers/otp';
import { createCoupon } from '../checkout/support';
import {
  embedPost,
  guestInitiate,
  hostedMethod,
  insertPaidPayment,
  paymentIdOf,
  statusOf,
  usePaymentsSuite,
} from './support';

/** A completed order for a checkout of 50.00 SAR, written directly. */
async function insertCompletedOrder(checkout: Checkout, paymentId: number | null = null): Promise<Order> {
  return Order.query().insertAndFetch({
    store_id: checkout.store_id,
    checkout_id: checkout.id,
    payment_id: paymentId,
    status: ORDER_STATUS.COMPLETED,
    customer_first_name: 'A',
    customer_last_name: 'B',
    customer_email: 'a@b.test',
    customer_country_code: '966',
    customer_phone: '500000001',
    subtotal_minor: 5_000,
    total_minor: 5_000,
    currency: 'SAR',
  });
}

describe('payment initiation and status (Embed API)', function () {
  this.timeout(20_000);
  const moyasar = new FakeMoyasar(['sk_test_store']);
  // No workers: what the API does on its own is all there is to see.
  const suite = usePaymentsSuite({
    workers: false,
    fake: { server: moyasar, urlVariable: 'MOYASAR_API_URL' },
  });
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore();
    await hostedMethod(suite.deps, store, 'card', 'moyasar', {
      secret_key: 'sk_test_store',
      webhook_secret: 'whsec',
    });
    await hostedMethod(suite.deps, store, 'mada', 'sandbox');
    product = await createProduct(store, { price_minor: 5_000 });
  });

  it('answers redirect at once without calling the provider: a pending payment, its audit row and a queued job', async () => {
    const checkout = await guestCheckout(suite.server, store, { product_id: product.id });
    const before = moyasar.requests.length;
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
    expect(res.body).to.deep.equal({ success: true, data: { type: 'redirect', redirect_url: redirectUrl } });
    expect(moyasar.requests.length, 'no provider call while answering').to.equal(before);

    const paymentId = paymentIdOf(redirectUrl);
    const payment = await Payment.query().findById(paymentId);
    expect(payment).to.deep.include({
      status: 'pending',
      method: 'card',
      provider: 'moyasar',
      amount_minor: 5_000,
    });
    expect(payment?.provider_payment_id).to.equal(null);
    const events = await PaymentEvent.query().where('payment_id', paymentId);
    expect(events.map((e) => [e.from_status, e.to_status, e.source])).to.deep.equal([
      [null, 'pending', 'api'],
    ]);
    const job = await suite.deps.queues.payments.getJob(`payment-initiate-${paymentId}`);
    expect(job?.data).to.deep.equal({ kind: 'initiate', paymentId });
    expect((await Checkout.query().findById(checkout.checkoutId))?.status).to.equal('payment_initiated');

    // The page waits (and reloads itself) until the worker has opened the provider session.
    const page = await suite.server.request(new URL(redirectUrl).pathname, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(page.status).to.equal(200);
    expect(page.text)
      .to.contain('<meta http-equiv="refresh" content="2">')
      .and.to.contain('Preparing your payment');

    // Initiating again with the same method hands out the same open payment.
    const again = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect((again.body.data as { redirect_url: string }).redirect_url).to.equal(redirectUrl);
    expect(await Payment.query().where('checkout_id', checkout.checkoutId).resultSize()).to.equal(1);
  });

  it('answers the errors of the spec’s table', async () => {
    const checkout = await guestCheckout(suite.server, store, { product_id: product.id });
    const invalid = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'cash');
    expect(invalid.status).to.equal(422);
    expect(invalid.body).to.deep.include({
      success: false,
      errors: { payment_method: ['Invalid payment method'] },
    });
    const missing = await embedPost(suite.server, store, '/api/embed/guest/payment/initiate', {});
    expect(missing.status).to.equal(422);
    expect(Object.keys(missing.body.errors as object)).to.have.members(['checkout_url', 'payment_method']);

    const unknown = await guestInitiate(suite.server, store, 'no-such-checkout', 'card');
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({
      success: false,
      error_code: 'checkout_not_found',
      message: 'Checkout session expired or not found',
    });

    const expired = await insertCheckout(store, product, { expires_at: new Date(Date.now() - 1_000) });
    expect((await guestInitiate(suite.server, store, expired.checkoutUrl, 'card')).status).to.equal(404);

    const otherStore = await createStore();
    expect(
      (await guestInitiate(suite.server, otherStore, checkout.checkoutUrl, 'card')).status,
      'another store’s key',
    ).to.equal(404);

    const notConfigured = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'coinbase');
    expect(notConfigured.status).to.equal(400);
    expect(notConfigured.body).to.deep.equal({
      success: false,
      error_code: 'payment_method_not_configured',
      message: 'Payment method not configured for this store',
    });

    expect(
      await Payment.query().where('checkout_id', checkout.checkoutId).resultSize(),
      'nothing written',
    ).to.equal(0);
  });

  it('refuses a method outside the coupon’s payment restrictions and outside the method’s amount bounds', async () => {
    const coupon = await createCoupon(store, {
      type: 'percentage',
      amount: 1_000,
      payment_restrictions: ['mada'],
    });
    const checkout = await guestCheckout(suite.server, store, {
      product_id: product.id,
      coupon_code: coupon.code,
    });
    const card = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(card.status).to.equal(400);
    expect(card.body).to.deep.equal({
      success: false,
      error_code: 'payment_method_not_allowed_by_coupon',
      message: 'The applied coupon cannot be used with this payment method',
    });
    expect((await guestInitiate(suite.server, store, checkout.checkoutUrl, 'mada')).status).to.equal(200);

    const bounded = await createStore();
    await hostedMethod(suite.deps, bounded, 'card', 'sandbox', {}, { min_amount_minor: 10_000 });
    await hostedMethod(suite.deps, bounded, 'mada', 'sandbox', {}, { max_amount_minor: 10_000 });
    const cheap = await createProduct(bounded, { price_minor: 5_000 });
    const small = await insertCheckout(bounded, cheap);
    const refused = await guestInitiate(suite.server, bounded, small.checkoutUrl, 'card');
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal({
      success: false,
      error_code: 'payment_method_amount_out_of_range',
      message: 'This payment method is not available for this amount',
    });
    expect((await guestInitiate(suite.server, bounded, small.checkoutUrl, 'mada')).status).to.equal(200);
  });

  it('authenticated form: needs a token with embed:checkout and pays only the customer’s own checkouts', async () => {
    const customer = await createCustomer(store);
    const other = await createCustomer(store);
    const token = await customerToken(customer, 'embed');
    const mine = await insertCheckout(store, product, { customer });
    const theirs = await insertCheckout(store, product, { customer: other });
    const path = '/api/embed/payment/initiate';

    expect(
      (await embedPost(suite.server, store, path, { checkout_url: mine.checkoutUrl, payment_method: 'mada' }))
        .status,
    ).to.equal(401);
    const foreign = await embedPost(
      suite.server,
      store,
      path,
      { checkout_url: theirs.checkoutUrl, payment_method: 'mada' },
      token,
    );
    expect(foreign.status).to.equal(404);
    const own = await embedPost(
      suite.server,
      store,
      path,
      { checkout_url: mine.checkoutUrl, payment_method: 'mada' },
      token,
    );
    expect(own.status, own.text).to.equal(200);
    expect((own.body.data as { type: string }).type).to.equal('redirect');
  });

  it('answers 400 once the checkout has its order', async () => {
    const { checkout, checkoutUrl } = await insertCheckout(store, product, { status: 'paid' });
    await insertCompletedOrder(checkout);
    const res = await guestInitiate(suite.server, store, checkoutUrl, 'card');
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      success: false,
      error_code: 'order_already_created',
      message: 'Order already created for this checkout',
    });
  });

  describe('GET /api/embed/payment/status/{checkoutUrl}', () => {
    it('is public: no embed key; unknown and expired unpaid checkouts are 404 Checkout not found', async () => {
      const { checkoutUrl } = await insertCheckout(store, product);
      const open = await statusOf(suite.server, checkoutUrl);
      expect(open.status).to.equal(200);
      expect(open.body).to.deep.equal({ success: true, data: { is_paid: false, order_id: null } });

      const unknown = await statusOf(suite.server, 'no-such-checkout');
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.equal({
        success: false,
        error_code: 'checkout_not_found',
        message: 'Checkout not found',
      });

      const expired = await insertCheckout(store, product, { expires_at: new Date(Date.now() - 1_000) });
      expect((await statusOf(suite.server, expired.checkoutUrl)).body).to.deep.equal({
        success: false,
        error_code: 'checkout_not_found',
        message: 'Checkout not found',
      });
    });

    it('keeps answering for a paid checkout after its lifetime, with the order id', async () => {
      const { checkout, checkoutUrl } = await insertCheckout(store, product, {
        status: 'paid',
        expires_at: new Date(Date.now() - 3_600_000),
      });
      const payment = await insertPaidPayment(checkout);
      const order = await insertCompletedOrder(checkout, payment.id);
      const res = await statusOf(suite.server, checkoutUrl);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { is_paid: true, order_id: order.id } });
    });

    it('is limited per IP (120 a minute), with the Embed envelope on 429', async () => {
      const { checkoutUrl } = await insertCheckout(store, product);
      const ip = randomIp();
      const path = `/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`;
      const answers: number[] = [];
      for (let i = 0; i < 121; i += 1) {
        answers.push((await suite.server.request(path, { headers: { 'X-Forwarded-For': ip } })).status);
      }
      expect(answers.slice(0, 120).every((s) => s === 200)).to.equal(true);
      const limited = await suite.server.request(path, { headers: { 'X-Forwarded-For': ip } });
      expect(limited.status).to.equal(429);
      expect(limited.body).to.include({ success: false, error_code: 'RATE_LIMIT_EXCEEDED' });
    });
  });
});
