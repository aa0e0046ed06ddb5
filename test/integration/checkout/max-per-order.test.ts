import crypto from 'node:crypto';
import { expect } from 'chai';
import { Product, ProductCode, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { expireCheckouts } from '../../../shared/services/maintenance';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import {
  createCustomer,
  createPaymentMethod,
  createProduct,
  createStore,
  customerToken,
  merchantToken,
} from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

const GUEST = {
  customer_first_name: 'Sara',
  customer_last_name: 'Ali',
  customer_email: 'sara@example.com',
  customer_phone: '500000001',
  customer_country_code: '966',
};

/**
 * `max_per_order` (the operator contract, docs/operations.md, "units per checkout"): one checkout line
 * holds at most that many units of a product (default 10); more is a 422 naming `quantity` on every
 * interface that opens checkouts or fills carts, and nothing is reserved.
 */
describe('max_per_order: units per checkout line', function () {
  this.timeout(30_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let domain: string;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    domain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
    store = await createStore({ domains: [domain] });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
  });
  after(async () => {
    // What this suite's checkouts hold goes back, so suites that count releases see only their own.
    await deps
      .knex('checkouts')
      .where('store_id', store.id)
      .whereIn('status', ['created', 'payment_initiated'])
      .update({ expires_at: new Date(Date.now() - 1000) });
    await expireCheckouts(deps.knex, undefined, deps);
    await server.close();
  });

  const embed = (path: string, json: unknown, token?: string) =>
    server.request(path, {
      method: json === undefined ? 'GET' : 'POST',
      json,
      headers: {
        'X-Embed-Key': store.embed_key,
        'X-Forwarded-For': randomIp(),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });
  const storefront = (path: string, opts: { method?: string; json?: unknown; cartId?: string } = {}) =>
    server.request(path, {
      method: opts.method ?? (opts.json === undefined ? 'GET' : 'POST'),
      json: opts.json,
      headers: {
        Host: domain,
        'X-Forwarded-For': randomIp(),
        ...(opts.cartId ? { 'X-Cart-Id': opts.cartId } : {}),
      },
    });
  const reservedKeys = async (product: Product) =>
    Number(
      (
        await deps
          .knex('product_codes')
          .where({ product_id: product.id, status: 'reserved' })
          .count<{ n: string }[]>('* as n')
      )[0]!.n,
    );

  it('defaults to 10: a guest checkout of 11 is a 422 naming quantity, and no key is reserved', async () => {
    const product = await createProduct(store, { type: 'code' });
    await ProductCode.query(deps.knex).insert(
      Array.from({ length: 30 }, (_, i) => ({ product_id: product.id, code: `K-${product.id}-${i}` })),
    );
    expect(product.max_per_order).to.equal(10);

    const over = await embed('/api/embed/guest/checkout', { ...GUEST, product_id: product.id, quantity: 11 });
    expect(over.status, over.text).to.equal(422);
    expect(over.body.success).to.equal(false);
    expect(over.body.errors).to.have.keys('quantity');
    expect((over.body.errors as Record<string, string[]>).quantity[0]).to.match(/at most 10/i);
    expect(await reservedKeys(product)).to.equal(0);

    const atMax = await embed('/api/embed/guest/checkout', {
      ...GUEST,
      product_id: product.id,
      quantity: 10,
    });
    expect(atMax.status, atMax.text).to.equal(200);
    expect(await reservedKeys(product)).to.equal(10);
  });

  it('follows the product’s own value on the authenticated Embed checkout, and shows it on the product', async () => {
    const product = await createProduct(store, { max_per_order: 2, stock: 100 });
    const shown = await embed(`/api/embed/product/${product.id}`, undefined);
    expect(shown.status, shown.text).to.equal(200);
    expect((shown.body.data as { max_per_order: number }).max_per_order).to.equal(2);

    const token = await customerToken(await createCustomer(store), 'embed');
    const over = await embed('/api/embed/checkout', { product_id: product.id, quantity: 3 }, token);
    expect(over.status, over.text).to.equal(422);
    expect(over.body.errors).to.have.keys('quantity');
    expect((await Product.query(deps.knex).findById(product.id))!.stock).to.equal(100);

    const ok = await embed('/api/embed/checkout', { product_id: product.id, quantity: 2 }, token);
    expect(ok.status, ok.text).to.equal(200);
    expect((await Product.query(deps.knex).findById(product.id))!.stock).to.equal(98);
  });

  it('caps Storefront cart lines (add and change) and checkout lines', async () => {
    const product = await createProduct(store, { max_per_order: 3 });
    const added = await storefront('/api/cart/add', { json: { product_id: product.id, quantity: 2 } });
    expect(added.status, added.text).to.equal(200);
    const cart = added.body.data as { cart_id: string; items: { id: number }[] };
    const cartId = cart.cart_id;

    // Adding 2 more to the same line would make 4.
    const more = await storefront('/api/cart/add', {
      json: { product_id: product.id, quantity: 2 },
      cartId,
    });
    expect(more.status, more.text).to.equal(422);
    expect(more.body.errors).to.have.keys('quantity');

    const patched = await storefront(`/api/cart/items/${cart.items[0]!.id}`, {
      method: 'PATCH',
      json: { quantity: 4 },
      cartId,
    });
    expect(patched.status, patched.text).to.equal(422);
    expect(patched.body.errors).to.have.keys('quantity');

    // The merchant lowers the cap after the line went in: the checkout names the line's quantity.
    await Product.query(deps.knex).patch({ max_per_order: 1 }).where('id', product.id);
    const checkout = await storefront('/api/checkout', { json: GUEST, cartId });
    expect(checkout.status, checkout.text).to.equal(422);
    expect(Object.keys(checkout.body.errors as object)).to.deep.equal(['items.0.quantity']);
  });

  it('caps POST /shawarma/orders of the Merchant API, whose product detail shows it', async () => {
    const product = await createProduct(store, { max_per_order: 5 });
    const token = await merchantToken(store);
    const res = await server.request('/shawarma/orders', {
      method: 'POST',
      json: { ...GUEST, product_id: product.id, quantity: 6 },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.errors).to.have.keys('quantity');
    expect(await deps.knex('checkouts').where('product_id', product.id).first()).to.equal(undefined);
    const detail = await server.request(`/shawarma/products/${product.id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(detail.status, detail.text).to.equal(200);
    expect((detail.body.data as { max_per_order: number }).max_per_order).to.equal(5);
  });

  it('is a fixture key: default 10, a value of its own, and a bad value named by its path', async () => {
    const ref = `mpo${crypto.randomBytes(3).toString('hex')}`;
    const fixture = (maxPerOrder?: unknown) => ({
      stores: [
        {
          ref,
          name: 'Max shop',
          currency: 'SAR',
          products: [
            { ref: 'a', name: 'A', slug: 'a', type: 'product', price: '1.00' },
            {
              ref: 'b',
              name: 'B',
              slug: 'b',
              type: 'product',
              price: '1.00',
              ...(maxPerOrder === undefined ? {} : { max_per_order: maxPerOrder }),
            },
          ],
        },
      ],
    });
    const manifest = await loadFixture(deps, fixture(3));
    const ids = manifest.stores[ref]!.products;
    expect((await Product.query(deps.knex).findById(ids.a!.id))!.max_per_order).to.equal(10);
    expect((await Product.query(deps.knex).findById(ids.b!.id))!.max_per_order).to.equal(3);

    for (const bad of [0, 2.5, '3']) {
      const err = await loadFixture(deps, fixture(bad)).catch((e: unknown) => e);
      expect(err, String(bad)).to.be.instanceOf(FixtureError);
      expect((err as Error).message).to.contain('stores[0].products[1].max_per_order');
    }
  });
});
