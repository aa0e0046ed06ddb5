import { expect } from 'chai';
import { Review } from '../../../db/models';
import {
  createCategory,
  createCustomer,
  createPaymentMethod,
  createProduct,
  customerToken,
} from '../../helpers/builders';
import { call, createShop, dataOf, ShopStore, useStorefrontSuite } from './support';

describe('Storefront products, reviews and store resolution', () => {
  const suite = useStorefrontSuite();

  describe('products', () => {
    let shop: ShopStore;
    let ids: Record<string, number>;

    before(async () => {
      shop = await createShop();
      const games = await createCategory(shop.store, { name: 'Games', slug: 'games' });
      const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
      const alpha = await createProduct(shop.store, {
        name: 'Alpha pack',
        slug: 'alpha',
        price_minor: 3_000,
        created_at: at(1),
      });
      const bravo = await createProduct(shop.store, {
        name: 'Bravo 100%_key',
        slug: 'bravo',
        type: 'code',
        price_minor: 9_000,
        sale_price_minor: 1_000,
        created_at: at(2),
      });
      const charlie = await createProduct(shop.store, {
        name: 'Charlie',
        slug: 'charlie',
        type: 'service',
        price_minor: 5_000,
        stock: 0,
        created_at: at(3),
      });
      await createProduct(shop.store, { name: 'Hidden', slug: 'hidden', active: false });
      await createProduct((await createShop()).store, { name: 'Alpha elsewhere' });
      await suite.deps.knex('product_categories').insert([
        { product_id: alpha.id, category_id: games.id },
        { product_id: bravo.id, category_id: games.id },
      ]);
      await suite.deps.knex('product_codes').insert({ product_id: bravo.id, code: 'K-1' });
      await createPaymentMethod(shop.store, { method: 'card', provider: 'sandbox' });
      ids = { alpha: alpha.id, bravo: bravo.id, charlie: charlie.id };
    });

    const names = (data: Record<string, unknown>) => (data.items as { name: string }[]).map((p) => p.name);

    it('lists the store’s active products, newest first, with total in meta', async () => {
      const data = dataOf(await call(suite, shop, '/api/products'));
      expect(names(data)).to.deep.equal(['Charlie', 'Bravo 100%_key', 'Alpha pack']);
      expect(data.meta).to.deep.equal({ page: 1, per_page: 15, total: 3, last_page: 1 });
      expect((data.items as Record<string, unknown>[])[0]).to.have.keys([
        'id',
        'name',
        'slug',
        'type',
        'price',
        'stock',
        'image',
        'categories',
      ]);
    });

    it('filters by category, type, search (literal % and _) and stock; sorts by price and name; pages', async () => {
      const list = async (query: string) => dataOf(await call(suite, shop, `/api/products?${query}`));
      expect(names(await list('category=games&sort=name'))).to.deep.equal(['Alpha pack', 'Bravo 100%_key']);
      expect(names(await list('type=code'))).to.deep.equal(['Bravo 100%_key']);
      expect(names(await list('search=alpha'))).to.deep.equal(['Alpha pack']);
      expect(names(await list('search=0%25_'))).to.deep.equal(['Bravo 100%_key']);
      expect(names(await list('in_stock=true&sort=name'))).to.deep.equal(['Alpha pack', 'Bravo 100%_key']);
      expect(names(await list('in_stock=false'))).to.deep.equal(['Charlie']);
      expect(names(await list('sort=price_asc'))).to.deep.equal(['Bravo 100%_key', 'Alpha pack', 'Charlie']);
      expect(names(await list('sort=price_desc'))).to.deep.equal(['Charlie', 'Alpha pack', 'Bravo 100%_key']);
      const second = await list('sort=name&per_page=2&page=2');
      expect(names(second)).to.deep.equal(['Charlie']);
      expect(second.meta).to.deep.equal({ page: 2, per_page: 2, total: 3, last_page: 2 });
    });

    it('answers 422 with errors per field for a bad query', async () => {
      const res = await call(suite, shop, '/api/products?page=0&per_page=1000&sort=cheapest&type=car');
      expect(res.status).to.equal(422);
      expect(res.body.success).to.equal(false);
      expect(res.body.errors).to.have.keys(['page', 'per_page', 'sort', 'type']);
    });

    it('shows one product by id or slug, with fields, plans and payment methods; 404 otherwise', async () => {
      const byId = dataOf(await call(suite, shop, `/api/products/${ids.bravo}`));
      const bySlug = dataOf(await call(suite, shop, '/api/products/bravo'));
      expect(byId).to.deep.equal(bySlug);
      expect(byId).to.include({ id: ids.bravo, slug: 'bravo', type: 'code' });
      expect(byId.price).to.include({ original: 90, actual: 10, currency: 'SAR' });
      expect(byId.stock).to.include({ is_in_stock: true });
      expect(byId.image).to.deep.equal({ url: '' });
      expect(byId).to.have.property('fields').that.is.an('array');
      expect(byId).to.have.property('subscription_plans').that.is.an('array');
      expect((byId.payment_methods as { id: string }[]).map((m) => m.id)).to.deep.equal(['card']);
      for (const path of ['/api/products/hidden', '/api/products/999999', '/api/products/nope']) {
        const res = await call(suite, shop, path);
        expect(res.status, path).to.equal(404);
        expect(res.body).to.deep.equal({
          success: false,
          data: null,
          error_code: 'product_not_found',
          message: 'Product not found',
        });
      }
    });
  });

  describe('reviews', () => {
    let shop: ShopStore;
    let productId: number;

    before(async () => {
      shop = await createShop();
      const product = await createProduct(shop.store, { name: 'E-book', slug: 'ebook' });
      productId = product.id;
      const sara = await createCustomer(shop.store, {
        first_name: 'Sara',
        last_name: 'ali',
        email: 'sara@example.com',
      });
      const omar = await createCustomer(shop.store, { first_name: 'Omar', last_name: 'Khan' });
      const at = (day: number) => new Date(Date.UTC(2026, 0, day));
      const review = (r: Partial<Review>) =>
        Review.query(suite.deps.knex).insert({ store_id: shop.store.id, published: true, ...r });
      await review({
        product_id: product.id,
        customer_id: sara.id,
        rating: 5,
        comment: 'Great',
        created_at: at(1),
      });
      await review({
        product_id: product.id,
        customer_id: omar.id,
        rating: 2,
        comment: null,
        created_at: at(2),
      });
      await review({
        product_id: null,
        customer_id: omar.id,
        rating: 4,
        comment: 'Fast delivery',
        created_at: at(3),
      });
      await review({
        product_id: null,
        customer_id: sara.id,
        rating: 5,
        comment: 'Hidden',
        published: false,
        created_at: at(4),
      });
      await review({
        product_id: product.id,
        customer_id: sara.id,
        rating: 3,
        comment: ' ',
        created_at: at(5),
      });
      const elsewhere = await createShop();
      await Review.query(suite.deps.knex).insert({
        store_id: elsewhere.store.id,
        rating: 5,
        published: true,
      });
    });

    it('lists recent reviews of 4 stars and up, by type, with the pinned fields and a display name', async () => {
      const all = dataOf(await call(suite, shop, '/api/reviews/recent')) as unknown as Record<
        string,
        unknown
      >[];
      expect(all.map((r) => r.comment)).to.deep.equal(['Fast delivery', 'Great']);
      const great = all[1]!;
      expect(great).to.include({ rating: 5, comment: 'Great', product_id: productId, type: 'product' });
      expect(great.created_at).to.equal('2026-01-01T00:00:00.000Z');
      expect(great.reviewer).to.deep.equal({ name: 'Sara A.' });
      expect(JSON.stringify(all)).to.not.contain('sara@example.com');
      const store = dataOf(await call(suite, shop, '/api/reviews/recent?type=store')) as unknown as Record<
        string,
        unknown
      >[];
      expect(store).to.have.length(1);
      expect(store[0]).to.include({ product_id: null, type: 'store', comment: 'Fast delivery' });
      expect(store[0]!.product).to.equal(null);
      const products = dataOf(
        await call(suite, shop, '/api/reviews/recent?type=product'),
      ) as unknown as Record<string, unknown>[];
      expect(products.map((r) => r.comment)).to.deep.equal(['Great']);
    });

    it('lists published reviews with filters, sorts and pagination', async () => {
      const list = async (q: string) => dataOf(await call(suite, shop, `/api/reviews?${q}`));
      const ratings = (d: Record<string, unknown>) => (d.items as { rating: number }[]).map((r) => r.rating);
      const all = await list('');
      expect(ratings(all)).to.deep.equal([3, 4, 2, 5]);
      expect(all.meta).to.deep.equal({ page: 1, per_page: 15, total: 4, last_page: 1 });
      expect(ratings(await list('sort=oldest'))).to.deep.equal([5, 2, 4, 3]);
      expect(ratings(await list('sort=highest'))).to.deep.equal([5, 4, 3, 2]);
      expect(ratings(await list('sort=lowest'))).to.deep.equal([2, 3, 4, 5]);
      expect(ratings(await list(`product_id=${productId}&sort=highest`))).to.deep.equal([5, 3, 2]);
      expect(ratings(await list('rating=5'))).to.deep.equal([5]);
      expect(ratings(await list('has_comment=true&sort=highest'))).to.deep.equal([5, 4]);
      expect(ratings(await list('has_comment=false&sort=highest'))).to.deep.equal([3, 2]);
      expect(ratings(await list('type=store'))).to.deep.equal([4]);
      const page2 = await list('per_page=3&page=2');
      expect(ratings(page2)).to.deep.equal([5]);
      expect(page2.meta).to.deep.equal({ page: 2, per_page: 3, total: 4, last_page: 2 });
      const bad = await call(suite, shop, '/api/reviews?rating=6&sort=best&has_comment=maybe');
      expect(bad.status).to.equal(422);
      expect(bad.body.errors).to.have.keys(['rating', 'sort', 'has_comment']);
    });

    it('gives statistics with rating_distribution keyed 1 to 5, for the store and per product', async () => {
      expect(dataOf(await call(suite, shop, '/api/reviews/stats'))).to.deep.equal({
        product_id: null,
        count: 4,
        average: 3.5,
        rating_distribution: { '1': 0, '2': 1, '3': 1, '4': 1, '5': 1 },
      });
      expect(dataOf(await call(suite, shop, `/api/reviews/stats?product_id=${productId}`))).to.deep.equal({
        product_id: productId,
        count: 3,
        average: 3.33,
        rating_distribution: { '1': 0, '2': 1, '3': 1, '4': 0, '5': 1 },
      });
    });
  });

  describe('store resolution and guards', () => {
    it('finds the store by Host (port ignored), else by Origin; 400 when neither names one', async () => {
      const shop = await createShop();
      await createProduct(shop.store, { name: 'Only here' });
      const byOrigin = await suite.server.request('/api/products', {
        headers: { Host: 'api.shared.example.test', Origin: `https://${shop.domain}:8443` },
      });
      expect(byOrigin.status).to.equal(200);
      expect((dataOf(byOrigin).items as { name: string }[]).map((p) => p.name)).to.deep.equal(['Only here']);
      for (const path of ['/api/products', '/api/reviews', '/api/cart', '/api/wishlist']) {
        const res = await suite.server.request(path, { headers: { Host: 'nowhere.example.test' } });
        expect(res.status, path).to.equal(400);
        expect(res.body).to.include({ success: false, data: null });
      }
    });

    it('answers CORS to any Origin without credentials, with the cart header', async () => {
      const shop = await createShop();
      const origin = `https://${shop.domain}`;
      const preflight = await suite.server.request('/api/cart/add', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', Host: 'api.shared.example.test' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(preflight.headers.get('access-control-allow-headers')).to.contain('X-Cart-Id');
      const answer = await suite.server.request('/api/cart', {
        headers: { Origin: origin, Host: 'api.shared.example.test' },
      });
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('access-control-allow-origin')).to.equal(origin);
      expect(answer.headers.get('access-control-expose-headers')).to.contain('X-Cart-Id');
      // A theme served from another site, on the store's own API domain: open, without credentials.
      const theme = await suite.server.request('/api/products', {
        headers: { Origin: 'https://theme.example.test', Host: shop.domain },
      });
      expect(theme.status).to.equal(200);
      expect(theme.headers.get('access-control-allow-origin')).to.equal('https://theme.example.test');
      expect(theme.headers.get('access-control-allow-credentials')).to.equal('false');
    });

    it('refuses an Embed token with 401 on the cart and checkout', async () => {
      const shop = await createShop();
      const embed = await customerToken(await createCustomer(shop.store), 'embed');
      for (const [method, path] of [
        ['GET', '/api/cart'],
        ['POST', '/api/cart/add'],
        ['POST', '/api/checkout'],
        ['POST', '/api/payment/initiate'],
      ] as const) {
        const res = await call(suite, shop, path, {
          method,
          token: embed,
          json: method === 'POST' ? {} : undefined,
        });
        expect(res.status, path).to.equal(401);
      }
    });

    it('limits the Storefront to 60 requests a minute per client IP (429 with message only)', async () => {
      const shop = await createShop();
      const ip = '10.250.0.1';
      const answers = [];
      for (let i = 0; i < 61; i += 1) answers.push(await call(suite, shop, '/api/reviews/stats', { ip }));
      expect(answers.slice(0, 60).every((a) => a.status === 200)).to.equal(true);
      expect(answers[60]!.status).to.equal(429);
      expect(Object.keys(answers[60]!.body)).to.deep.equal(['message']);
      // Another address is not affected.
      expect((await call(suite, shop, '/api/reviews/stats')).status).to.equal(200);
    });
  });
});
