import { expect } from 'chai';
import { Checkout, Coupon, CouponUse, Order, OrderItem, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import { findLiveCheckout } from '../../../shared/services/checkout';
import { expireCheckouts } from '../../../shared/services/maintenance';
import {
  createCustomer,
  createPaymentMethod,
  createProduct,
  createStore,
  customerToken,
} from '../../helpers/builders';
import { TEST_ENV } from '../../helpers/env';
import {
  addCodes,
  CheckoutSuite,
  createCoupon,
  createPlan,
  createProductWithFields,
  Data,
  dataOf,
  embedCaller,
  EmbedCaller,
  GUEST,
  storeSuite,
} from './support';

const GUEST_PATH = '/api/embed/guest/checkout';
const AUTH_PATH = '/api/embed/checkout';

describe('Embed checkout', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;
  let product: Product;

  before(async () => {
    ({ suite, store, api } = await storeSuite({
      env: { CHECKOUT_TTL_SECONDS: '900' },
      paymentMethod: { method: 'card' },
    }));
    product = await createProduct(store, { price_minor: 5000, sale_price_minor: 4000 });
  });
  after(() => suite.close());

  const guest = (body: Record<string, unknown>) => api.post(GUEST_PATH, { ...GUEST, ...body });
  const checkoutOf = async (res: { body: Data }) => {
    const url = String(dataOf(res as never).checkout_url);
    return Checkout.query()
      .findOne({ token_hash: sha256(url) })
      .throwIfNotFound();
  };

  describe('guest checkout', () => {
    it('opens a checkout that needs payment, keeping only a hash of its secret url', async () => {
      const before = Date.now();
      const res = await guest({ product_id: product.id, quantity: 2, customer_country_code: '+966' });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      const data = dataOf(res);
      expect(data).to.have.keys(
        'type',
        'checkout_id',
        'checkout_url',
        'payment_url',
        'reveal_token',
        'amount',
        'subtotal',
        'discount_amount',
        'tax_amount',
        'payment_methods',
      );
      expect(data).to.include({
        type: 'payment_required',
        amount: '80.00',
        subtotal: '80.00',
        discount_amount: '0.00',
        tax_amount: '0.00',
      });
      const url = String(data.checkout_url);
      // 32 random bytes, base64url: 256 bits.
      expect(url).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(data.payment_url).to.equal(`${TEST_ENV.PUBLIC_BASE_URL}/pay/${url}`);
      expect(data.payment_methods).to.deep.equal([
        { id: 'card', name_ar: 'بطاقة ائتمانية', name_en: 'Credit card', icon: 'card' },
      ]);

      const checkout = await Checkout.query().findById(Number(data.checkout_id)).throwIfNotFound();
      expect(checkout.token_hash).to.equal(sha256(url));
      expect(JSON.stringify(checkout)).to.not.contain(url);
      // The reveal token (docs/widget.md, "The goods after paying"): its hash only.
      expect(checkout.reveal_token_hash).to.equal(sha256(String(data.reveal_token)));
      expect(JSON.stringify(checkout)).to.not.contain(String(data.reveal_token));
      expect(checkout).to.include({
        store_id: store.id,
        customer_id: null,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: product.id,
        quantity: 2,
        unit_price_minor: 4000,
        addons_minor: 0,
        subtotal_minor: 8000,
        total_minor: 8000,
        currency: 'SAR',
        status: 'created',
        reserved: false,
      });
      const ttl = new Date(checkout.expires_at).getTime() - before;
      expect(ttl).to.be.within(899_000, 901_000);
    });

    it('accepts notice as the customer note, customer_note winning when both are sent', async () => {
      const viaNotice = await checkoutOf(
        await guest({ product_id: product.id, quantity: 1, notice: 'Gift wrap' }),
      );
      expect(viaNotice.customer_note).to.equal('Gift wrap');
      const both = await checkoutOf(
        await guest({ product_id: product.id, quantity: 1, notice: 'ignored', customer_note: 'Kept' }),
      );
      expect(both.customer_note).to.equal('Kept');
    });

    it('reports every missing field at once', async () => {
      const res = await api.post(GUEST_PATH, {});
      expect(res.status).to.equal(422);
      expect(res.body.message).to.equal('Invalid request');
      expect(res.body.errors).to.have.keys(
        'product_id',
        'quantity',
        'customer_first_name',
        'customer_last_name',
        'customer_email',
        'customer_phone',
        'customer_country_code',
      );
    });

    const limits: [string, Record<string, unknown>, string][] = [
      ['a first name of 101 characters', { customer_first_name: 'a'.repeat(101) }, 'customer_first_name'],
      ['a last name of 101 characters', { customer_last_name: 'b'.repeat(101) }, 'customer_last_name'],
      ['a note of 501 characters', { customer_note: 'n'.repeat(501) }, 'customer_note'],
      ['a notice of 501 characters', { notice: 'n'.repeat(501) }, 'notice'],
      ['a phone of 21 characters', { customer_phone: '5'.repeat(21) }, 'customer_phone'],
      ['a phone with letters', { customer_phone: '50000abc1' }, 'customer_phone'],
      ['a country code of 11 characters', { customer_country_code: '+9661234567' }, 'customer_country_code'],
      ['a country code with letters', { customer_country_code: 'SA' }, 'customer_country_code'],
      ['an invalid e-mail', { customer_email: 'not-an-email' }, 'customer_email'],
      ['quantity 0', { quantity: 0 }, 'quantity'],
      ['a fractional quantity', { quantity: 1.5 }, 'quantity'],
      ['a product id that is not a number', { product_id: 'x' }, 'product_id'],
      ['a subscription plan that is not a number', { subscription_plan: 'monthly' }, 'subscription_plan'],
      ['custom fields that are not an object', { fields: 'Alice' }, 'fields'],
    ];
    for (const [name, change, field] of limits) {
      it(`refuses ${name} with 422 on ${field}`, async () => {
        const res = await guest({ product_id: product.id, quantity: 1, ...change });
        expect(res.status).to.equal(422);
        expect(res.body.success).to.equal(false);
        expect(Object.keys(res.body.errors as Data)).to.deep.equal([field]);
        const [message] = (res.body.errors as Record<string, string[]>)[field];
        expect(message).to.contain(field);
      });
    }

    it('accepts every field at its limit', async () => {
      const res = await guest({
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'a'.repeat(100),
        customer_last_name: 'b'.repeat(100),
        customer_note: 'n'.repeat(500),
        customer_phone: '1'.repeat(20),
        customer_country_code: '00966',
      });
      expect(res.status).to.equal(200);
      const checkout = await checkoutOf(res);
      expect(checkout.customer_first_name).to.have.length(100);
      expect(checkout.customer_note).to.have.length(500);
      expect(checkout.customer_phone).to.equal('1'.repeat(20));
      expect(checkout.customer_country_code).to.equal('966');
    });

    it('answers 422 on product_id for a product of another store, an inactive or an unknown one', async () => {
      const foreign = await createProduct(await createStore());
      const inactive = await createProduct(store, { active: false });
      for (const id of [foreign.id, inactive.id, 999_999]) {
        const res = await guest({ product_id: id, quantity: 1 });
        expect(res.status).to.equal(422);
        expect(res.body.errors).to.deep.equal({ product_id: ['The selected product id is invalid.'] });
      }
    });
  });

  describe('authenticated checkout', () => {
    it('takes the customer from the token', async () => {
      const customer = await createCustomer(store, { first_name: 'Omar', last_name: 'Saleh' });
      const token = await customerToken(customer, 'embed');
      const res = await api.post(
        AUTH_PATH,
        { product_id: product.id, quantity: 1, customer_note: 'hi' },
        token,
      );
      expect(res.status).to.equal(200);
      expect(dataOf(res).type).to.equal('payment_required');
      const checkout = await checkoutOf(res);
      expect(checkout).to.include({
        customer_id: customer.id,
        customer_first_name: 'Omar',
        customer_last_name: 'Saleh',
        customer_email: customer.email,
        customer_phone: customer.phone,
        customer_country_code: customer.country_code,
        customer_note: 'hi',
      });
    });

    it('refuses a missing token, a token of another store and a storefront token', async () => {
      const body = { product_id: product.id, quantity: 1 };
      const missing = await api.post(AUTH_PATH, body);
      expect(missing.status).to.equal(401);

      const elsewhere = await createCustomer(await createStore());
      const foreign = await api.post(AUTH_PATH, body, await customerToken(elsewhere, 'embed'));
      expect(foreign.status).to.equal(401);
      expect(foreign.body.success).to.equal(false);

      const storefront = await api.post(
        AUTH_PATH,
        body,
        await customerToken(await createCustomer(store), 'storefront'),
      );
      expect(storefront.status).to.equal(403);
      expect(await Checkout.query().where({ customer_id: elsewhere.id }).resultSize()).to.equal(0);
    });

    it('validates the body like the guest form', async () => {
      const token = await customerToken(await createCustomer(store), 'embed');
      const res = await api.post(
        AUTH_PATH,
        { product_id: product.id, quantity: 0, notice: 'x'.repeat(501) },
        token,
      );
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.keys('quantity', 'notice');
    });
  });

  describe('pricing', () => {
    const optionsProduct = (s: Store) =>
      createProductWithFields(
        s,
        [
          { type: 'text', label: 'Player name', required: true },
          {
            type: 'select',
            label: 'Edition',
            required: false,
            options: [
              { label: 'Standard', price_minor: 0 },
              { label: 'Deluxe', price_minor: 1550 },
            ],
          },
        ],
        { price_minor: 5000, sale_price_minor: 4000 },
      );

    it('adds the chosen option to each unit and keeps the values with their labels', async () => {
      const p = await optionsProduct(store);
      const res = await guest({ product_id: p.id, quantity: 3, fields: { 0: 'Neo', 1: 1 } });
      expect(res.status).to.equal(200);
      expect(dataOf(res)).to.include({ subtotal: '166.50', amount: '166.50', tax_amount: '0.00' });
      const checkout = await checkoutOf(res);
      expect(checkout).to.include({ unit_price_minor: 4000, addons_minor: 1550, subtotal_minor: 16_650 });
      expect(checkout.fields).to.deep.equal({
        0: { type: 'text', label: 'Player name', value: 'Neo' },
        1: { type: 'select', label: 'Edition', value: 1, option: 'Deluxe', price_minor: 1550 },
      });
    });

    it('adds exclusive VAT after the discount', async () => {
      const taxed = await createStore({ tax_mode: 'exclusive', tax_rate_bp: 1500 });
      await createPaymentMethod(taxed);
      const p = await createProduct(taxed, { price_minor: 5000, sale_price_minor: null });
      await createCoupon(taxed, { code: 'TEN', type: 'percentage', amount: 1000 });
      const res = await embedCaller(suite.server, taxed).post(GUEST_PATH, {
        ...GUEST,
        product_id: p.id,
        quantity: 2,
        coupon_code: 'ten',
      });
      expect(res.status).to.equal(200);
      expect(dataOf(res)).to.include({
        subtotal: '100.00',
        discount_amount: '10.00',
        tax_amount: '13.50',
        amount: '103.50',
      });
    });

    it('shows the VAT already contained in inclusive prices without adding it', async () => {
      const taxed = await createStore({ tax_mode: 'inclusive', tax_rate_bp: 1500 });
      await createPaymentMethod(taxed);
      const p = await createProduct(taxed, { price_minor: 11_500 });
      const res = await embedCaller(suite.server, taxed).post(GUEST_PATH, {
        ...GUEST,
        product_id: p.id,
        quantity: 1,
      });
      expect(dataOf(res)).to.include({ subtotal: '115.00', tax_amount: '15.00', amount: '115.00' });
    });

    it('refuses a bad coupon with the apply-coupon answer, judging the minimum on the subtotal with options', async () => {
      const p = await optionsProduct(store);
      await createCoupon(store, { code: 'MIN50', min_order_minor: 5000 });
      const below = await guest({
        product_id: p.id,
        quantity: 1,
        coupon_code: 'MIN50',
        fields: { 0: 'a', 1: 0 },
      });
      expect(below.status).to.equal(400);
      expect(below.body).to.deep.equal({
        success: false,
        error_code: 'coupon_minimum_order',
        message: 'Minimum order value is 50.00',
      });
      // 40.00 + 15.50 reaches it.
      const above = await guest({
        product_id: p.id,
        quantity: 1,
        coupon_code: 'MIN50',
        fields: { 0: 'a', 1: 1 },
      });
      expect(above.status).to.equal(200);
      expect(dataOf(above)).to.include({ subtotal: '55.50', discount_amount: '5.55', amount: '49.95' });

      const unknown = await guest({ product_id: product.id, quantity: 1, coupon_code: 'NOPE' });
      expect(unknown.body).to.deep.equal({
        success: false,
        error_code: 'coupon_invalid',
        message: 'Invalid coupon',
      });
      const count = await Checkout.query().where({ coupon_id: null, product_id: product.id }).resultSize();
      const again = await guest({ product_id: product.id, quantity: 1, coupon_code: 'NOPE' });
      expect(again.status).to.equal(400);
      expect(await Checkout.query().where({ coupon_id: null, product_id: product.id }).resultSize()).to.equal(
        count,
      );
    });
  });

  describe('payment methods', () => {
    let shop: Store;
    let shopApi: EmbedCaller;
    let item: Product;

    before(async () => {
      shop = await createStore();
      shopApi = embedCaller(suite.server, shop);
      item = await createProduct(shop, { price_minor: 10_000 });
      await createPaymentMethod(shop, { method: 'card', position: 1 });
      await createPaymentMethod(shop, { method: 'mada', position: 2, max_amount_minor: 20_000 });
      await createPaymentMethod(shop, {
        method: 'bank',
        provider: 'bank',
        position: 3,
        min_amount_minor: 25_000,
      });
      await createPaymentMethod(shop, { method: 'stcpay', position: 4, active: false });
    });

    const methodsFor = async (body: Record<string, unknown>) => {
      const res = await shopApi.post(GUEST_PATH, { ...GUEST, product_id: item.id, ...body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return (dataOf(res).payment_methods as { id: string }[]).map((m) => m.id);
    };

    it('offers the active methods whose minimum and maximum admit the total', async () => {
      expect(await methodsFor({ quantity: 1 })).to.deep.equal(['card', 'mada']);
      expect(await methodsFor({ quantity: 2 })).to.deep.equal(['card', 'mada']);
      expect(await methodsFor({ quantity: 3 })).to.deep.equal(['card', 'bank']);
    });

    it('keeps to the coupon’s payment restrictions', async () => {
      await createCoupon(shop, {
        code: 'MADAONLY',
        type: 'fixed',
        amount: 100,
        payment_restrictions: ['mada', 'bank'],
      });
      expect(await methodsFor({ quantity: 1, coupon_code: 'MADAONLY' })).to.deep.equal(['mada']);
    });

    it('refuses a checkout that no configured method could take, writing nothing', async () => {
      await createCoupon(shop, {
        code: 'STCONLY',
        type: 'fixed',
        amount: 100,
        payment_restrictions: ['stcpay'],
      });
      const before = await Checkout.query().where({ store_id: shop.id }).resultSize();
      const res = await shopApi.post(GUEST_PATH, {
        ...GUEST,
        product_id: item.id,
        quantity: 1,
        coupon_code: 'STCONLY',
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('No payment method is available for this order');
      expect(await Checkout.query().where({ store_id: shop.id }).resultSize()).to.equal(before);
    });
  });

  describe('subscription products', () => {
    let subscription: Product;

    before(async () => {
      subscription = await createProduct(store, { type: 'subscription', price_minor: 99_900 });
    });

    it('require subscription_plan', async () => {
      await createPlan(subscription);
      const res = await guest({ product_id: subscription.id, quantity: 1 });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({
        subscription_plan: ['The subscription plan is required for a subscription product.'],
      });
    });

    it('refuse a plan of another product or an inactive plan', async () => {
      const otherProduct = await createProduct(store, { type: 'subscription' });
      const foreignPlan = await createPlan(otherProduct);
      const retired = await createPlan(subscription, { active: false });
      for (const plan of [foreignPlan.id, retired.id, 999_999]) {
        const res = await guest({ product_id: subscription.id, quantity: 1, subscription_plan: plan });
        expect(res.status).to.equal(422);
        expect(res.body.errors).to.deep.equal({
          subscription_plan: ['The selected subscription plan is not a plan of this product.'],
        });
      }
    });

    it('charge the plan’s price and record the plan', async () => {
      const yearly = await createPlan(subscription, {
        name: 'Yearly',
        price_minor: 12_000,
        duration: 'yearly',
      });
      const res = await guest({ product_id: subscription.id, quantity: 2, subscription_plan: yearly.id });
      expect(res.status).to.equal(200);
      expect(dataOf(res)).to.include({ subtotal: '240.00', amount: '240.00' });
      expect(await checkoutOf(res)).to.include({ plan_id: yearly.id, unit_price_minor: 12_000 });
    });
  });

  describe('free orders', () => {
    it('create the order at once, count the coupon use and enqueue fulfilment', async () => {
      const p = await createProductWithFields(
        store,
        [
          {
            type: 'select',
            label: 'Edition',
            required: true,
            options: [
              { label: 'Standard', price_minor: 0 },
              { label: 'Deluxe', price_minor: 1550 },
            ],
          },
        ],
        { price_minor: 4000 },
      );
      const coupon = await createCoupon(store, {
        code: 'FREE100',
        amount: 10_000,
        max_uses: 5,
        uses_count: 1,
      });
      const customer = await createCustomer(store);
      const res = await api.post(
        AUTH_PATH,
        { product_id: p.id, quantity: 2, coupon_code: 'free100', fields: { 0: '1' }, notice: 'thanks' },
        await customerToken(customer, 'embed'),
      );
      expect(res.status).to.equal(200);
      const data = dataOf(res);
      expect(data).to.include({
        type: 'free_order',
        message: 'Order created successfully',
        amount: '0.00',
        subtotal: '111.00',
        discount_amount: '111.00',
        tax_amount: '0.00',
      });
      expect(data).to.not.have.any.keys('checkout_id', 'payment_url');
      expect(data.payment_methods).to.deep.equal([]);

      const order = await Order.query().findById(Number(data.order_id)).throwIfNotFound();
      expect(order).to.include({
        store_id: store.id,
        customer_id: customer.id,
        status: 3,
        subtotal_minor: 11_100,
        discount_minor: 11_100,
        total_minor: 0,
        coupon_id: coupon.id,
        customer_note: 'thanks',
        payment_method: null,
        source: 'embed',
      });
      const items = await OrderItem.query().where({ order_id: order.id });
      expect(items).to.have.length(1);
      expect(items[0]).to.include({
        product_id: p.id,
        quantity: 2,
        unit_price_minor: 5550,
        total_minor: 11_100,
      });
      expect(items[0].fields).to.deep.equal({
        0: { type: 'select', label: 'Edition', value: 1, option: 'Deluxe', price_minor: 1550 },
      });
      expect(await CouponUse.query().where({ coupon_id: coupon.id })).to.have.length(1);
      expect((await Coupon.query().findById(coupon.id))!.uses_count).to.equal(2);
      const checkout = await checkoutOf(res);
      expect(checkout.status).to.equal('paid');
      expect(order.checkout_id).to.equal(checkout.id);

      const job = await suite.deps.queues.fulfilment.getJob(`order-created-${order.id}`);
      expect(job, 'fulfilment job').to.exist;
      expect(job!.data).to.deep.equal({ orderId: order.id, event: 'created' });
    });

    it('sell the reserved code keys to the order', async () => {
      const codes = await createProduct(store, { type: 'code', price_minor: 1000 });
      const keys = await addCodes(suite.deps, codes, 3);
      await createCoupon(store, { code: 'KEYSFREE', amount: 10_000 });
      const res = await guest({ product_id: codes.id, quantity: 2, coupon_code: 'KEYSFREE' });
      expect(dataOf(res).type).to.equal('free_order');
      const [item] = await OrderItem.query().where({ order_id: Number(dataOf(res).order_id) });
      const sold = await suite.deps.knex('product_codes').where({ order_item_id: item.id }).orderBy('id');
      expect(sold.map((k: { code: string }) => k.code)).to.deep.equal(keys.slice(0, 2));
      expect(
        sold.every((k: { status: string; sold_at: Date | null }) => k.status === 'sold' && k.sold_at),
      ).to.equal(true);
    });
  });

  describe('reservations and expiry', () => {
    it('takes finite stock at checkout and refuses more than is left', async () => {
      const limited = await createProduct(store, { stock: 3 });
      const first = await guest({ product_id: limited.id, quantity: 2 });
      expect(first.status).to.equal(200);
      expect((await checkoutOf(first)).reserved).to.equal(true);
      expect((await Product.query().findById(limited.id))!.stock).to.equal(1);

      const tooMany = await guest({ product_id: limited.id, quantity: 2 });
      expect(tooMany.status).to.equal(400);
      expect(tooMany.body).to.deep.equal({
        success: false,
        error_code: 'out_of_stock',
        message: 'Insufficient stock',
      });
      expect((await Product.query().findById(limited.id))!.stock).to.equal(1);
      expect(await Checkout.query().where({ product_id: limited.id }).resultSize()).to.equal(1);
    });

    it('reserves code keys and refuses more than are available', async () => {
      const codes = await createProduct(store, { type: 'code' });
      await addCodes(suite.deps, codes, 2);
      const res = await guest({ product_id: codes.id, quantity: 2 });
      expect(res.status).to.equal(200);
      const checkout = await checkoutOf(res);
      const held = await suite.deps.knex('product_codes').where({ product_id: codes.id, status: 'reserved' });
      expect(held.map((k: { checkout_id: number }) => k.checkout_id)).to.deep.equal([
        checkout.id,
        checkout.id,
      ]);

      const none = await guest({ product_id: codes.id, quantity: 1 });
      expect(none.status).to.equal(400);
      expect(none.body.message).to.equal('Insufficient stock');
    });

    it('gives keys and stock back when the checkout expires, after which it is not found', async () => {
      const codes = await createProduct(store, { type: 'code' });
      await addCodes(suite.deps, codes, 2);
      const limited = await createProduct(store, { stock: 5 });
      const keyCheckout = await guest({ product_id: codes.id, quantity: 2 });
      const stockCheckout = await guest({ product_id: limited.id, quantity: 3 });
      const stockCheckout2 = await guest({ product_id: limited.id, quantity: 1 });
      const urls = [keyCheckout, stockCheckout, stockCheckout2].map((r) => String(dataOf(r).checkout_url));
      expect((await Product.query().findById(limited.id))!.stock).to.equal(1);
      for (const url of urls)
        expect(await findLiveCheckout(Checkout.knex(), store.id, url)).to.not.equal(null);

      const ids = await Promise.all(
        [keyCheckout, stockCheckout, stockCheckout2].map(async (r) => (await checkoutOf(r)).id),
      );
      await Checkout.query()
        .whereIn('id', ids)
        .patch({ expires_at: new Date(Date.now() - 1000) });
      // Past its lifetime a checkout is not found even before the task has run.
      expect(await findLiveCheckout(Checkout.knex(), store.id, urls[0])).to.equal(null);

      const result = await expireCheckouts(suite.deps.knex, undefined, suite.deps);
      expect(result.expired).to.be.at.least(3);
      expect(
        await suite.deps.knex('product_codes').where({ product_id: codes.id, status: 'available' }),
      ).to.have.length(2);
      expect((await Product.query().findById(limited.id))!.stock).to.equal(5);
      for (const url of urls) expect(await findLiveCheckout(Checkout.knex(), null, url)).to.equal(null);
      const statuses = await suite.deps.knex('checkouts').whereIn('id', ids).pluck('status');
      expect(statuses).to.deep.equal(['expired', 'expired', 'expired']);

      // A second run finds nothing more to give back.
      await expireCheckouts(suite.deps.knex, undefined, suite.deps);
      expect((await Product.query().findById(limited.id))!.stock).to.equal(5);
    });

    it('finds a live checkout only in its own store, and a paid one after its lifetime', async () => {
      const res = await guest({ product_id: product.id, quantity: 1 });
      const url = String(dataOf(res).checkout_url);
      const other = await createStore();
      expect(await findLiveCheckout(Checkout.knex(), other.id, url)).to.equal(null);
      expect((await findLiveCheckout(Checkout.knex(), null, url))?.id).to.equal(dataOf(res).checkout_id);
      expect(await findLiveCheckout(Checkout.knex(), store.id, `${url}x`)).to.equal(null);

      await Checkout.query()
        .findById(Number(dataOf(res).checkout_id))
        .patch({ status: 'paid', expires_at: new Date(Date.now() - 1000) });
      expect((await findLiveCheckout(Checkout.knex(), store.id, url))?.status).to.equal('paid');
    });
  });
});
