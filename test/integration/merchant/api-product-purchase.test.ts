import { expect } from 'chai';
import { Product, Store } from '../../../db/models';
import { createStore, merchantToken } from '../../helpers/builders';
import { completionOf, usePaymentsSuite, waitFor } from '../payments/support';
import { buyThroughSandbox } from '../fivem/support';
import { call, expectEnvelope } from './support';

/**
 * A merchant's first sale without an operator: the payment method, the product and its key stock are all
 * set up through the Merchant API, then a buyer pays through the Embed API and the sandbox provider (real
 * workers), receives a key, and the merchant sees the stock go down and the order in the API.
 */
describe('Merchant API: a product created through the API is bought through the Embed API', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let token: string;

  before(async () => {
    store = await createStore({ name: 'API-made store' });
    token = await merchantToken(store);
  });

  it('sells a code product whose method, product and keys came from the API', async () => {
    const api = (method: string, path: string, json?: unknown) =>
      call(suite.server, token, method, path, json);
    expectEnvelope(
      await api('PATCH', '/shawarma/store', { payment_methods: { card: { provider: 'sandbox' } } }),
      200,
    );
    const category = await api('POST', '/shawarma/categories', { name: 'Keys', slug: 'keys' });
    expectEnvelope(category, 201);
    const created = await api('POST', '/shawarma/products', {
      name: 'Game key',
      slug: 'game-key',
      type: 'code',
      price: '30.00',
      sale_price: '25.00',
      categories: [(category.body.data as { id: number }).id],
      fields: [{ type: 'text', label: 'Player name', required: true }],
    });
    expectEnvelope(created, 201);
    const productId = (created.body.data as { id: number }).id;
    const added = await api('POST', `/shawarma/products/${productId}/codes`, { codes: ['KEY-A', 'KEY-B'] });
    expect(added.body.data).to.deep.include({ added: 2, available: 2 });

    const product = (await Product.query().findById(productId))!;
    const order = await buyThroughSandbox(
      suite.deps,
      suite.server,
      store,
      product,
      { '0': 'Sara' },
      '500009811',
    );
    expect(order.total_minor).to.equal(2_500);
    await completionOf(order.id);

    const detail = await api('GET', `/shawarma/orders/${order.id}`);
    expectEnvelope(detail, 200);
    const item = (detail.body.data as { items: { product_id: number; codes: string[] }[] }).items[0]!;
    expect(item.product_id).to.equal(productId);
    expect(item.codes).to.have.length(1);
    const sold = item.codes[0]!;

    const stock = await waitFor('the key to be counted as sold', async () => {
      const res = await api('GET', `/shawarma/products/${productId}/codes`);
      const counts = (res.body.data as { counts: { sold: number } }).counts;
      return counts.sold === 1 ? res : undefined;
    });
    expect((stock.body.data as { counts: unknown }).counts).to.deep.equal({
      available: 1,
      reserved: 0,
      sold: 1,
    });
    // The sold key is the buyer's: never listed among the unsold ones.
    expect(stock.text).to.not.contain(sold);
  });
});
