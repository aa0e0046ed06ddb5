import { expect } from 'chai';
import { WishlistItem } from '../../../db/models';
import { createCategory, createCustomer, createProduct, customerToken } from '../../helpers/builders';
import { call, createShop, dataOf, ShopStore, signedIn, useStorefrontSuite } from './support';

/** Spec: Wishlist (six endpoints), Wishlist errors, Product (as embedded in wishlist results). */
describe('Storefront wishlist', () => {
  const suite = useStorefrontSuite();
  let shop: ShopStore;
  let token: string;

  beforeEach(async () => {
    shop = await createShop();
    ({ token } = await signedIn(shop));
  });

  it('adds, lists with the product object, checks, counts, removes and clears', async () => {
    const category = await createCategory(shop.store, { name: 'Games', slug: 'games' });
    const product = await createProduct(shop.store, {
      name: 'E-book',
      slug: 'ebook',
      price_minor: 5_000,
      sale_price_minor: 4_000,
      image_url: 'https://cdn.example.test/ebook.png',
    });
    await suite.deps.knex('product_categories').insert({ product_id: product.id, category_id: category.id });
    const other = await createProduct(shop.store, { type: 'code' });

    const added = await call(suite, shop, '/api/wishlist', { json: { product_id: product.id }, token });
    expect(added.status).to.equal(200);
    expect(added.body).to.deep.equal({ success: true, data: null, message: 'Product added to wishlist' });
    await call(suite, shop, '/api/wishlist', { json: { product_id: other.id }, token });

    const list = await call(suite, shop, '/api/wishlist', { token });
    expect(list.status).to.equal(200);
    const data = dataOf(list) as { items: Record<string, unknown>[]; count: number };
    expect(data.count).to.equal(2);
    const item = data.items.find((i) => i.id === product.id)!;
    expect(item).to.deep.equal({
      id: product.id,
      name: 'E-book',
      slug: 'ebook',
      type: 'product',
      price: {
        original: 50,
        actual: 40,
        formatted: item.price && (item.price as { formatted: string }).formatted,
        currency: 'SAR',
      },
      stock: { is_in_stock: true },
      image: { url: 'https://cdn.example.test/ebook.png' },
      categories: [{ id: category.id, name: 'Games', slug: 'games' }],
    });
    expect((item.price as { formatted: string }).formatted)
      .to.be.a('string')
      .and.contain('40.00');
    // A code product without keys is out of stock.
    expect(data.items.find((i) => i.id === other.id)!.stock).to.deep.equal({ is_in_stock: false });

    expect(dataOf(await call(suite, shop, `/api/wishlist/check/${product.id}`, { token }))).to.deep.equal({
      in_wishlist: true,
    });
    expect(dataOf(await call(suite, shop, '/api/wishlist/count', { token }))).to.deep.equal({ count: 2 });

    const removed = await call(suite, shop, `/api/wishlist/${product.id}`, { method: 'DELETE', token });
    expect(removed.body).to.deep.equal({
      success: true,
      data: null,
      message: 'Product removed from wishlist',
    });
    expect(dataOf(await call(suite, shop, `/api/wishlist/check/${product.id}`, { token }))).to.deep.equal({
      in_wishlist: false,
    });

    const cleared = await call(suite, shop, '/api/wishlist/clear', { method: 'DELETE', token });
    expect(cleared.body).to.deep.equal({ success: true, data: null, message: 'Wishlist cleared' });
    expect(dataOf(await call(suite, shop, '/api/wishlist', { token }))).to.deep.equal({
      items: [],
      count: 0,
    });
  });

  it('answers every error of the Wishlist errors table', async () => {
    const product = await createProduct(shop.store);
    const foreign = await createProduct((await createShop()).store);

    // 401 on every endpoint without a token, with a bad one, and with an Embed token of this store.
    const embedToken = await customerToken(await createCustomer(shop.store), 'embed');
    const endpoints: [string, string, unknown?][] = [
      ['GET', '/api/wishlist'],
      ['POST', '/api/wishlist', { product_id: product.id }],
      ['DELETE', `/api/wishlist/${product.id}`],
      ['GET', `/api/wishlist/check/${product.id}`],
      ['GET', '/api/wishlist/count'],
      ['DELETE', '/api/wishlist/clear'],
    ];
    for (const bearer of [undefined, 'cst_not-a-token', embedToken]) {
      for (const [method, path, json] of endpoints) {
        const res = await call(suite, shop, path, { method, json, token: bearer });
        expect(res.status, `${method} ${path}`).to.equal(401);
        expect(res.body).to.include({ success: false, data: null });
      }
    }

    // 422: missing, not an integer, unknown, another store's.
    for (const json of [
      {},
      { product_id: 'abc' },
      { product_id: 1.5 },
      { product_id: 2_000_000_000 },
      { product_id: foreign.id },
    ]) {
      const res = await call(suite, shop, '/api/wishlist', { json, token });
      expect(res.status, JSON.stringify(json)).to.equal(422);
      expect(res.body.errors).to.have.property('product_id');
      expect(res.body.message).to.be.a('string');
    }

    // 400: already there.
    expect(
      (await call(suite, shop, '/api/wishlist', { json: { product_id: product.id }, token })).status,
    ).to.equal(200);
    const again = await call(suite, shop, '/api/wishlist', { json: { product_id: product.id }, token });
    expect(again.status).to.equal(400);
    expect(again.body).to.deep.equal({
      success: false,
      data: null,
      error_code: 'wishlist_already_added',
      message: 'Product already in wishlist',
    });

    // 404: not in the wishlist (also for a path that cannot name a product).
    for (const path of [`/api/wishlist/${foreign.id}`, '/api/wishlist/999999999', '/api/wishlist/abc']) {
      const res = await call(suite, shop, path, { method: 'DELETE', token });
      expect(res.status, path).to.equal(404);
      expect(res.body).to.deep.equal({
        success: false,
        data: null,
        error_code: 'wishlist_item_not_found',
        message: 'Product not in wishlist',
      });
    }
  });

  it('keeps one entry under 10 simultaneous adds: one 200, nine 400', async () => {
    const product = await createProduct(shop.store);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call(suite, shop, '/api/wishlist', { json: { product_id: product.id }, token }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    expect(await WishlistItem.query(suite.deps.knex).where({ product_id: product.id })).to.have.length(1);
  });

  it('scopes by store: a token of one store is refused on another, and lists stay apart', async () => {
    const product = await createProduct(shop.store);
    await call(suite, shop, '/api/wishlist', { json: { product_id: product.id }, token });
    const otherShop = await createShop();
    const res = await call(suite, otherShop, '/api/wishlist', { token });
    expect(res.status).to.equal(401);
    const otherToken = (await signedIn(otherShop)).token;
    expect(dataOf(await call(suite, otherShop, '/api/wishlist', { token: otherToken }))).to.deep.equal({
      items: [],
      count: 0,
    });
    // Another customer of the same store sees their own list.
    const neighbour = (await signedIn(shop)).token;
    expect(dataOf(await call(suite, shop, '/api/wishlist/count', { token: neighbour }))).to.deep.equal({
      count: 0,
    });
  });
});
