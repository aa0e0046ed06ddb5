import { expect } from 'chai';
import { Checkout, License, Order, OrderItem, Product, ProductCode } from '../../../db/models';
import { createCustomer, createProduct, customerToken } from '../../helpers/builders';
import { expireCheckouts } from '../../../shared/services/maintenance';
import { createCoupon } from '../checkout/support';
import {
  browse,
  completionOf,
  hostedMethod,
  orderOf,
  paymentIdOf,
  paymentsSuite,
  PaymentsSuite,
  sessionOf,
  waitFor,
} from '../payments/support';
import { call, createShop, Data, dataOf, ShopStore, signedIn, StorefrontSuite } from './support';

interface CartData {
  cart_id: string | null;
  items: {
    id: number;
    product_id: number;
    quantity: number;
    available: boolean;
    problem: string | null;
    subtotal: string | null;
  }[];
  count: number;
  coupon: { code: string; discount_amount: string; error: string | null } | null;
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  total: string;
}

const GUEST = {
  customer_first_name: 'Sara',
  customer_last_name: 'Ali',
  customer_email: 'sara@example.com',
  customer_country_code: '+966',
};

describe('Storefront cart and multi-item checkout', function () {
  this.timeout(30_000);
  let running: PaymentsSuite;
  const suite: StorefrontSuite = {
    get deps() {
      return running.deps;
    },
    get server() {
      return running.server;
    },
  };
  before(async () => {
    running = await paymentsSuite();
  });
  after(() => running.close());

  let shop: ShopStore;
  beforeEach(async () => {
    shop = await createShop({ name: 'Acme Digital' });
    await hostedMethod(suite.deps, shop.store, 'card', 'sandbox');
  });

  const cartOf = (res: Awaited<ReturnType<typeof call>>): CartData => {
    expect(res.status, res.text).to.equal(200);
    return dataOf(res) as unknown as CartData;
  };

  it('keeps an anonymous cart by X-Cart-Id: add, merge, change, remove, clear, prices recomputed on read', async () => {
    const ebook = await createProduct(shop.store, { price_minor: 5_000 });
    const course = await createProduct(shop.store, { price_minor: 2_000, sale_price_minor: 1_500 });

    const first = await call(suite, shop, '/api/cart/add', { json: { product_id: ebook.id } });
    const created = cartOf(first);
    expect(created.cart_id).to.match(/^cart_/);
    expect(first.headers.get('x-cart-id')).to.equal(created.cart_id);
    const cartId = created.cart_id!;

    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: ebook.id, quantity: 2 }, cartId }));
    let cart = cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: course.id }, cartId }));
    expect(cart.items.map((i) => [i.product_id, i.quantity])).to.deep.equal([
      [ebook.id, 3],
      [course.id, 1],
    ]);
    expect(cart).to.include({ count: 4, subtotal: '165.00', total: '165.00', discount_amount: '0.00' });

    // Prices are read again on every request.
    await Product.query(suite.deps.knex).patch({ price_minor: 4_000 }).where('id', ebook.id);
    cart = cartOf(await call(suite, shop, '/api/cart', { cartId }));
    expect(cart.total).to.equal('135.00');

    const ebookLine = cart.items[0]!.id;
    cart = cartOf(
      await call(suite, shop, `/api/cart/items/${ebookLine}`, {
        method: 'PATCH',
        json: { quantity: 1 },
        cartId,
      }),
    );
    expect(cart.total).to.equal('55.00');

    // A product taken off sale stays visible but out of the totals.
    await Product.query(suite.deps.knex).patch({ active: false }).where('id', course.id);
    cart = cartOf(await call(suite, shop, '/api/cart', { cartId }));
    expect(cart.items[1]).to.include({
      available: false,
      problem: 'This product is no longer available',
      subtotal: null,
    });
    expect(cart).to.include({ count: 1, total: '40.00' });

    cart = cartOf(await call(suite, shop, `/api/cart/items/${ebookLine}`, { method: 'DELETE', cartId }));
    expect(cart.items).to.have.length(1);
    cart = cartOf(await call(suite, shop, '/api/cart', { method: 'DELETE', cartId }));
    expect(cart.items).to.deep.equal([]);
    expect(cart.total).to.equal('0.00');
  });

  it('answers bad input in the envelope: 422 fields and cart id, 404 line, 400 stock', async () => {
    const product = await createProduct(shop.store, { stock: 2 });
    const other = await createProduct((await createShop()).store);
    for (const json of [
      {},
      { product_id: 'x' },
      { product_id: product.id, quantity: 0 },
      { product_id: other.id },
    ]) {
      const res = await call(suite, shop, '/api/cart/add', { json });
      expect(res.status, JSON.stringify(json)).to.equal(422);
      expect(res.body).to.include({ success: false, data: null });
      expect(res.body.errors).to.be.an('object');
    }
    const badId = await call(suite, shop, '/api/cart', { cartId: 'cart_<script>' });
    expect(badId.status).to.equal(422);
    expect(badId.body.errors).to.have.property('X-Cart-Id');

    const { cart_id: cartId } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: product.id, quantity: 2 } }),
    );
    const more = await call(suite, shop, '/api/cart/add', {
      json: { product_id: product.id },
      cartId: cartId!,
    });
    expect(more.status).to.equal(400);
    expect(more.body).to.deep.equal({
      success: false,
      data: null,
      error_code: 'out_of_stock',
      message: 'Insufficient stock',
    });
    for (const [method, json] of [
      ['PATCH', { quantity: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(suite, shop, '/api/cart/items/999999', { method, json, cartId: cartId! });
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal('Cart item not found');
    }
    const nothing = await call(suite, shop, '/api/checkout', {
      json: GUEST_WITH_PHONE,
      cartId: 'cart_0000000000000000unknown',
    });
    expect(nothing.status).to.equal(400);
    expect(nothing.body.message).to.equal('Cart is empty');
  });

  it('applies coupons to eligible lines only, with the spec’s coupon messages', async () => {
    const ebook = await createProduct(shop.store, { price_minor: 5_000 });
    const course = await createProduct(shop.store, { price_minor: 3_000 });
    const elsewhere = await createProduct(shop.store, { price_minor: 1_000 });
    await createCoupon(shop.store, { code: 'EBOOK10', type: 'percentage', amount: 1_000 }, [ebook.id]);
    await createCoupon(shop.store, { code: 'BIG', type: 'fixed', amount: 500, min_order_minor: 100_000 });
    await createCoupon(shop.store, { code: 'OTHER', type: 'fixed', amount: 500 }, [elsewhere.id]);
    const { cart_id } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: ebook.id, quantity: 2 } }),
    );
    const cartId = cart_id!;
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: course.id }, cartId }));

    const refusals: [string, string, string][] = [
      ['NOPE', 'Invalid coupon', 'coupon_invalid'],
      ['BIG', 'Minimum order value is 1000.00', 'coupon_minimum_order'],
      ['OTHER', 'This coupon is not valid for this product', 'coupon_not_for_product'],
    ];
    for (const [code, message, error_code] of refusals) {
      const res = await call(suite, shop, '/api/cart/coupon', { json: { code }, cartId });
      expect(res.status, code).to.equal(400);
      expect(res.body).to.deep.equal({ success: false, data: null, error_code, message });
    }
    // 10% of the e-book lines (100.00) only, not of the course.
    const cart = cartOf(await call(suite, shop, '/api/cart/coupon', { json: { code: 'ebook10' }, cartId }));
    expect(cart.coupon).to.deep.equal({ code: 'EBOOK10', discount_amount: '10.00', error: null });
    expect(cart).to.include({ subtotal: '130.00', discount_amount: '10.00', total: '120.00' });
    const removed = cartOf(await call(suite, shop, '/api/cart/coupon', { method: 'DELETE', cartId }));
    expect(removed).to.include({ coupon: null, total: '130.00' });
  });

  it('binds a signed-in customer’s cart to the token, and never shows a cart to another store', async () => {
    const product = await createProduct(shop.store);
    const { token } = await signedIn(shop);
    const mine = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: product.id }, token }),
    );
    expect(mine.cart_id).to.equal(null);
    expect(cartOf(await call(suite, shop, '/api/cart', { token })).count).to.equal(1);
    // Another customer, and an anonymous visitor, see their own (empty) carts.
    expect(
      cartOf(await call(suite, shop, '/api/cart', { token: (await signedIn(shop)).token })).count,
    ).to.equal(0);
    expect(cartOf(await call(suite, shop, '/api/cart')).items).to.deep.equal([]);

    // An anonymous cart of this store, presented to another store, is not found there.
    const anonymous = cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: product.id } }));
    const otherShop = await createShop();
    const there = cartOf(await call(suite, otherShop, '/api/cart', { cartId: anonymous.cart_id! }));
    expect(there).to.include({ cart_id: null, count: 0 });
    const line = anonymous.items[0]!.id;
    const patched = await call(suite, otherShop, `/api/cart/items/${line}`, {
      method: 'PATCH',
      json: { quantity: 3 },
      cartId: anonymous.cart_id!,
    });
    expect(patched.status).to.equal(404);
    // The token of this store is refused on the other store.
    expect((await call(suite, otherShop, '/api/cart', { token })).status).to.equal(401);
    expect(
      (
        await call(suite, shop, '/api/cart', {
          token: await customerToken(await createCustomer(shop.store), 'embed'),
        })
      ).status,
    ).to.equal(401);
  });

  it('moves an anonymous cart into the customer’s cart when the visitor signs in', async () => {
    const ebook = await createProduct(shop.store, { price_minor: 5_000 });
    const course = await createProduct(shop.store, { price_minor: 1_000 });
    await createCoupon(shop.store, { code: 'TEN', type: 'fixed', amount: 1_000 });
    const anonymous = cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: ebook.id } }));
    cartOf(
      await call(suite, shop, '/api/cart/coupon', { json: { code: 'TEN' }, cartId: anonymous.cart_id! }),
    );
    const { token } = await signedIn(shop);
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: course.id }, token }));

    const merged = cartOf(await call(suite, shop, '/api/cart', { token, cartId: anonymous.cart_id! }));
    expect(merged.cart_id).to.equal(null);
    expect(merged.items.map((i) => i.product_id).sort()).to.deep.equal([ebook.id, course.id].sort());
    expect(merged).to.include({ subtotal: '60.00', discount_amount: '10.00', total: '50.00' });
    // The anonymous cart is gone.
    expect(cartOf(await call(suite, shop, '/api/cart', { cartId: anonymous.cart_id! })).items).to.deep.equal(
      [],
    );
  });

  it('reserves keys and stock for every line or for none', async () => {
    const keys = await createProduct(shop.store, { type: 'code' });
    await suite.deps.knex('product_codes').insert([
      { product_id: keys.id, code: `A-${keys.id}-1` },
      { product_id: keys.id, code: `A-${keys.id}-2` },
    ]);
    const boxed = await createProduct(shop.store, { stock: 1 });
    const { cart_id } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: keys.id, quantity: 2 } }),
    );
    const cartId = cart_id!;
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: boxed.id }, cartId }));
    // Someone else buys the last unit before this cart checks out.
    await Product.query(suite.deps.knex).patch({ stock: 0 }).where('id', boxed.id);

    const res = await call(suite, shop, '/api/checkout', { json: GUEST_WITH_PHONE, cartId });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal('Insufficient stock');
    expect(
      await ProductCode.query(suite.deps.knex).where({ product_id: keys.id, status: 'available' }),
    ).to.have.length(2);
    expect(await Checkout.query(suite.deps.knex).where('store_id', shop.store.id)).to.deep.equal([]);
    // The cart is still there to fix.
    expect(cartOf(await call(suite, shop, '/api/cart', { cartId })).items).to.have.length(2);
  });

  it('gives every line’s keys and stock back when a multi-item checkout expires', async () => {
    const keys = await createProduct(shop.store, { type: 'code' });
    await suite.deps.knex('product_codes').insert([
      { product_id: keys.id, code: `X-${keys.id}-1` },
      { product_id: keys.id, code: `X-${keys.id}-2` },
    ]);
    const boxed = await createProduct(shop.store, { stock: 5 });
    const crate = await createProduct(shop.store, { stock: 3 });
    const { cart_id } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: keys.id, quantity: 2 } }),
    );
    const cartId = cart_id!;
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: boxed.id, quantity: 2 }, cartId }));
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: crate.id, quantity: 3 }, cartId }));
    // The task sweeps the whole database: what other suites left unpaid is expired first, so the counts
    // below are this checkout's own.
    await expireCheckouts(suite.deps.knex, new Date(Date.now() + 2 * 3600_000), suite.deps);
    const opened = await call(suite, shop, '/api/checkout', { json: GUEST_WITH_PHONE, cartId });
    expect(opened.status, opened.text).to.equal(200);
    const stock = async (id: number) => (await Product.query(suite.deps.knex).findById(id))!.stock;
    expect([await stock(boxed.id), await stock(crate.id)]).to.deep.equal([3, 0]);

    const result = await expireCheckouts(suite.deps.knex, new Date(Date.now() + 2 * 3600_000), suite.deps);
    expect(result).to.include({ releasedCodes: 2, releasedStock: 5 });
    expect([await stock(boxed.id), await stock(crate.id)]).to.deep.equal([5, 3]);
    expect(
      await ProductCode.query(suite.deps.knex).where({ product_id: keys.id, status: 'available' }),
    ).to.have.length(2);
  });

  it('checks out a signed-in customer’s cart; a full discount is a free order of every line at once', async () => {
    const a = await createProduct(shop.store, { price_minor: 2_000 });
    const b = await createProduct(shop.store, { price_minor: 3_000 });
    await createCoupon(shop.store, { code: 'FREE', type: 'percentage', amount: 10_000 });
    const { customer, token } = await signedIn(shop);
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: a.id }, token }));
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: b.id, quantity: 2 }, token }));
    cartOf(await call(suite, shop, '/api/cart/coupon', { json: { code: 'FREE' }, token }));

    const res = await call(suite, shop, '/api/checkout', { json: { customer_note: 'Gift' }, token });
    expect(res.status, res.text).to.equal(200);
    const data = dataOf(res) as Data & { order_id: number };
    expect(data).to.include({
      type: 'free_order',
      amount: '0.00',
      subtotal: '80.00',
      discount_amount: '80.00',
    });
    const order = await Order.query(suite.deps.knex).findById(data.order_id);
    expect(order).to.include({
      customer_id: customer.id,
      customer_note: 'Gift',
      source: 'storefront',
      total_minor: 0,
    });
    const items = await OrderItem.query(suite.deps.knex).where('order_id', data.order_id).orderBy('id');
    expect(items.map((i) => [i.product_id, i.quantity])).to.deep.equal([
      [a.id, 1],
      [b.id, 2],
    ]);
    await completionOf(data.order_id);
  });

  it('lets only the buyer pay a signed-in customer’s checkout, and asks an anonymous buyer for details', async () => {
    const product = await createProduct(shop.store);
    const { token } = await signedIn(shop);
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: product.id }, token }));
    const opened = dataOf(await call(suite, shop, '/api/checkout', { json: {}, token })) as {
      checkout_url: string;
    };
    const body = { checkout_url: opened.checkout_url, payment_method: 'card' };
    const stranger = await call(suite, shop, '/api/payment/initiate', {
      json: body,
      token: (await signedIn(shop)).token,
    });
    expect(stranger.status).to.equal(404);
    const own = await call(suite, shop, '/api/payment/initiate', { json: body, token });
    expect(own.status, own.text).to.equal(200);
    const bad = await call(suite, shop, '/api/payment/initiate', {
      json: { ...body, payment_method: 'cash' },
      token,
    });
    expect(bad.status).to.equal(422);

    const { cart_id } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: product.id } }),
    );
    const missing = await call(suite, shop, '/api/checkout', {
      json: { customer_first_name: 'Sara' },
      cartId: cart_id!,
    });
    expect(missing.status).to.equal(422);
    expect(missing.body.errors).to.have.keys([
      'customer_last_name',
      'customer_email',
      'customer_phone',
      'customer_country_code',
    ]);
  });

  it('buys a three-item cart through the sandbox: one checkout, one payment, one order with three fulfilled items', async () => {
    const keys = await createProduct(shop.store, { name: 'Game key', type: 'code', price_minor: 2_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: keys.id, code: `K-${keys.id}-1` },
      { product_id: keys.id, code: `K-${keys.id}-2` },
      { product_id: keys.id, code: `K-${keys.id}-3` },
    ]);
    const app = await createProduct(shop.store, {
      name: 'Desktop app',
      price_minor: 10_000,
      license_enabled: true,
      license_prefix: 'ACME',
      license_lock_type: 'none',
    });
    const ebook = await createProduct(shop.store, { name: 'E-book', price_minor: 3_000, stock: 5 });
    await createCoupon(shop.store, { code: 'KEYS50', type: 'percentage', amount: 5_000 }, [keys.id]);

    const { cart_id } = cartOf(
      await call(suite, shop, '/api/cart/add', { json: { product_id: keys.id, quantity: 2 } }),
    );
    const cartId = cart_id!;
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: app.id }, cartId }));
    cartOf(await call(suite, shop, '/api/cart/add', { json: { product_id: ebook.id }, cartId }));
    const priced = cartOf(await call(suite, shop, '/api/cart/coupon', { json: { code: 'KEYS50' }, cartId }));
    expect(priced).to.include({ subtotal: '170.00', discount_amount: '20.00', total: '150.00' });

    const opened = await call(suite, shop, '/api/checkout', {
      json: { ...GUEST_WITH_PHONE, customer_note: 'Thanks' },
      cartId,
    });
    expect(opened.status, opened.text).to.equal(200);
    const session = dataOf(opened) as Data & {
      checkout_url: string;
      checkout_id: number;
      payment_url: string;
    };
    expect(session).to.include({
      type: 'payment_required',
      amount: '150.00',
      subtotal: '170.00',
      discount_amount: '20.00',
      tax_amount: '0.00',
    });
    expect(session.payment_url).to.equal(
      `${suite.deps.config.publicBaseUrl}/pay/${encodeURIComponent(session.checkout_url)}`,
    );
    // Reserved at once: two keys and one unit; the cart is empty now.
    expect(
      await ProductCode.query(suite.deps.knex).where({ product_id: keys.id, status: 'reserved' }),
    ).to.have.length(2);
    expect((await Product.query(suite.deps.knex).findById(ebook.id))!.stock).to.equal(4);
    expect(cartOf(await call(suite, shop, '/api/cart', { cartId })).items).to.deep.equal([]);

    // Paid exactly as an Embed checkout: initiate, the sandbox page, its webhook.
    const initiated = await call(suite, shop, '/api/payment/initiate', {
      json: { checkout_url: session.checkout_url, payment_method: 'card' },
    });
    expect(initiated.status, initiated.text).to.equal(200);
    const redirectUrl = (dataOf(initiated) as { redirect_url: string }).redirect_url;
    const paymentId = paymentIdOf(redirectUrl);
    await sessionOf(paymentId);
    const page = await browse(suite.server, redirectUrl);
    const providerPage = page.status === 302 ? (page.headers.get('location') ?? '') : redirectUrl;
    const shown = page.status === 302 ? await browse(suite.server, providerPage) : page;
    expect(shown.text).to.contain('150.00');
    const paid = await browse(suite.server, providerPage, { outcome: 'paid' });
    expect(paid.status).to.be.oneOf([200, 302, 303]);

    const order = await orderOf(session.checkout_id);
    const completed = await completionOf(order.id);
    expect(completed).to.include({
      total_minor: 15_000,
      subtotal_minor: 17_000,
      discount_minor: 2_000,
      source: 'storefront',
    });
    expect(await Order.query(suite.deps.knex).where('checkout_id', session.checkout_id)).to.have.length(1);
    const items = await OrderItem.query(suite.deps.knex).where('order_id', order.id).orderBy('id');
    expect(items.map((i) => [i.product_id, i.quantity, i.total_minor])).to.deep.equal([
      [keys.id, 2, 4_000],
      [app.id, 1, 10_000],
      [ebook.id, 1, 3_000],
    ]);
    // Fulfilled per item: the two keys sold to the key line, a license for the app, the unit taken.
    const sold = await ProductCode.query(suite.deps.knex).where({
      order_item_id: items[0]!.id,
      status: 'sold',
    });
    expect(sold).to.have.length(2);
    const licenses = await License.query(suite.deps.knex).where({ order_item_id: items[1]!.id });
    expect(licenses.map((l) => l.status)).to.deep.equal(['active']);
    expect(licenses[0]!.key).to.match(/^ACME-/);
    expect((await Product.query(suite.deps.knex).findById(ebook.id))!.stock).to.equal(4);
    const status = await call(suite, shop, `/api/payment/status/${encodeURIComponent(session.checkout_url)}`);
    expect(dataOf(status)).to.deep.equal({ is_paid: true, order_id: order.id });
    await waitFor('the keys in the outbox', async () => {
      const res = await suite.server.request(`/__dev/outbox?to=966${GUEST_WITH_PHONE.customer_phone}`);
      const bodies = (res.body.messages as { body: string }[]).map((m) => m.body).join('\n');
      return sold.every((k) => bodies.includes(k.code)) ? bodies : undefined;
    });
  });
});

const GUEST_WITH_PHONE = { ...GUEST, customer_phone: '500000777' };
