import { noteStockChangedOn } from '../../../shared/services/catalogue/cache';
import { expect } from 'chai';
import { Store } from '../../../db/models';
import { createCategory, createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import {
  addCodes,
  CheckoutSuite,
  createPlan,
  createProductWithFields,
  Data,
  dataOf,
  EmbedCaller,
  storeSuite,
} from './support';

describe('GET /api/embed/product/{productId}', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;

  before(async () => {
    ({ suite, store, api } = await storeSuite({ store: { currency: 'SAR' } }));
  });
  after(() => suite.close());

  it('gives a checkout interface everything it shows', async () => {
    const games = await createCategory(store, { name: 'Games', slug: 'games', position: 2 });
    const gifts = await createCategory(store, { name: 'Gifts', slug: 'gifts', position: 1 });
    const product = await createProductWithFields(
      store,
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
        { type: 'image', label: 'Avatar', required: false },
      ],
      {
        name: 'E-book',
        slug: `ebook-${Date.now()}`,
        description: 'A good read',
        price_minor: 5000,
        sale_price_minor: 4000,
        stock: 7,
        image_url: 'https://cdn.example.test/ebook.png',
      },
    );
    await suite.deps.knex('product_categories').insert([
      { product_id: product.id, category_id: games.id },
      { product_id: product.id, category_id: gifts.id },
    ]);
    await createPaymentMethod(store, { method: 'card', position: 1 });
    await createPaymentMethod(store, {
      method: 'bank',
      provider: 'bank',
      position: 2,
      min_amount_minor: 10_000,
    });
    await createPaymentMethod(store, { method: 'paypal', provider: 'paypal', active: false });

    const res = await api.get(`/api/embed/product/${product.id}`);
    expect(res.status).to.equal(200);
    expect(res.body.success).to.equal(true);
    const data = dataOf(res);
    expect(data).to.deep.include({
      id: product.id,
      name: 'E-book',
      slug: product.slug,
      description: 'A good read',
      type: 'product',
      currency: 'SAR',
      price: { original: 50, actual: 40, formatted: '40.00 SAR', currency: 'SAR' },
      stock: { is_in_stock: true, quantity: 7 },
      image: { url: 'https://cdn.example.test/ebook.png' },
      subscription_plans: [],
    });
    expect(data.categories).to.deep.equal([
      { id: gifts.id, name: 'Gifts', slug: 'gifts' },
      { id: games.id, name: 'Games', slug: 'games' },
    ]);
    expect(data.fields).to.deep.equal([
      {
        index: 0,
        type: 'text',
        label: 'Player name',
        label_ar: null,
        required: true,
        options: [],
        upload: null,
      },
      {
        index: 1,
        type: 'select',
        label: 'Edition',
        label_ar: null,
        required: false,
        options: [
          { index: 0, label: 'Standard', label_ar: null, price: '0.00' },
          { index: 1, label: 'Deluxe', label_ar: null, price: '15.50' },
        ],
        upload: null,
      },
      {
        index: 2,
        type: 'image',
        label: 'Avatar',
        label_ar: null,
        required: false,
        options: [],
        upload: { accept: ['jpg', 'jpeg', 'png', 'gif'], max_size_bytes: 10 * 1024 * 1024 },
      },
    ]);
    expect(data.payment_methods).to.deep.equal([
      {
        id: 'card',
        name_ar: 'بطاقة ائتمانية',
        name_en: 'Credit card',
        icon: 'card',
        min_amount: null,
        max_amount: null,
      },
      {
        id: 'bank',
        name_ar: 'تحويل بنكي',
        name_en: 'Bank transfer',
        icon: 'bank',
        min_amount: '100.00',
        max_amount: null,
      },
    ]);
  });

  it('counts the available keys of a code product as its stock', async () => {
    const product = await createProduct(store, { type: 'code', stock: 99 });
    let data = dataOf(await api.get(`/api/embed/product/${product.id}`));
    expect(data.stock).to.deep.equal({ is_in_stock: false, quantity: 0 });

    await addCodes(suite.deps, product, 3);
    // Keys held by a checkout are not for sale: two of the three are reserved.
    const held = await suite.deps
      .knex('product_codes')
      .where({ product_id: product.id })
      .orderBy('id')
      .limit(2)
      .pluck('id');
    // Written here by hand, in a unit of work that bumps the product's cache counter after commit as every
    // stock writer does (docs/caching.md); otherwise the answer cached by the first read would stand for its TTL.
    await suite.deps.tx(async (uow) => {
      await uow.trx('product_codes').whereIn('id', held).update({ status: 'reserved' });
      noteStockChangedOn(uow, [product.id]);
    });
    data = dataOf(await api.get(`/api/embed/product/${product.id}`));
    expect(data.stock).to.deep.equal({ is_in_stock: true, quantity: 1 });
  });

  it('shows unlimited stock as null, an empty stock as out of stock, and no image as a null url', async () => {
    const unlimited = await createProduct(store, { stock: null, image_url: null, description: null });
    const data = dataOf(await api.get(`/api/embed/product/${unlimited.id}`));
    expect(data.stock).to.deep.equal({ is_in_stock: true, quantity: null });
    expect(data.image).to.deep.equal({ url: null });
    expect(data.description).to.equal(null);

    const soldOut = await createProduct(store, { stock: 0 });
    expect(dataOf(await api.get(`/api/embed/product/${soldOut.id}`)).stock).to.deep.equal({
      is_in_stock: false,
      quantity: 0,
    });
  });

  it('lists the active subscription plans with their prices as decimal strings', async () => {
    const product = await createProduct(store, { type: 'subscription', price_minor: 0 });
    const monthly = await createPlan(product, {
      name: 'Monthly',
      price_minor: 1000,
      duration: 'monthly',
      position: 1,
    });
    const yearly = await createPlan(product, {
      name: 'Yearly',
      price_minor: 9950,
      duration: 'yearly',
      position: 2,
    });
    await createPlan(product, { name: 'Old', active: false });
    const data = dataOf(await api.get(`/api/embed/product/${product.id}`));
    expect(data.subscription_plans).to.deep.equal([
      { id: monthly.id, name: 'Monthly', price: '10.00', price_formatted: '10.00 SAR', duration: 'monthly' },
      { id: yearly.id, name: 'Yearly', price: '99.50', price_formatted: '99.50 SAR', duration: 'yearly' },
    ]);
  });

  it('answers 404 in the envelope for an unknown, inactive or foreign product, or a malformed id', async () => {
    const inactive = await createProduct(store, { active: false });
    const foreign = await createProduct(await createStore());
    for (const id of ['999999', String(inactive.id), String(foreign.id), 'abc', '0', '-1', '99999999999']) {
      const res = await api.get(`/api/embed/product/${id}`);
      expect(res.status, id).to.equal(404);
      expect(res.body, id).to.deep.equal({
        success: false,
        error_code: 'product_not_found',
        message: 'Product not found',
      });
    }
  });

  it('needs the embed key', async () => {
    const product = await createProduct(store);
    const res = await suite.server.request(`/api/embed/product/${product.id}`);
    expect(res.status).to.equal(401);
    expect((res.body as Data).success).to.equal(false);
  });
});
