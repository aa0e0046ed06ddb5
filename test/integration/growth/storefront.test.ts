import { expect } from 'chai';
import { createPaymentMethod, createProduct, merchantToken } from '../../helpers/builders';
import { call, createShop, dataOf, useStorefrontSuite } from '../storefront/support';

/** The Storefront path (docs/growth.md): a timed sale in its answers and cart, a creator_code at its checkout. */
describe('Growth: the Storefront’s prices and checkout', function () {
  this.timeout(60_000);
  const suite = useStorefrontSuite();

  it('shows the sale as price.actual, prices the cart with it and credits the creator_code of its checkout', async () => {
    const shop = await createShop();
    await createPaymentMethod(shop.store);
    const product = await createProduct(shop.store, { price_minor: 20_000 });
    const token = await merchantToken(shop.store);
    const merchant = (path: string, json: unknown) =>
      suite.server.request(path, { method: 'POST', json, headers: { Authorization: `Bearer ${token}` } });
    const sale = await merchant('/shawarma/sales', {
      name: 'Ramadan',
      amount: '30.00',
      products: [product.id],
      starts_at: new Date(Date.now() - 60_000).toISOString(),
      ends_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(sale.status, sale.text).to.equal(201);
    const creator = await merchant('/shawarma/creators', {
      name: 'Store',
      code: 'SHOP44',
      commission_percent: 5,
    });
    expect(creator.status, creator.text).to.equal(201);

    const shown = dataOf(await call(suite, shop, `/api/products/${product.id}`)) as {
      price: { original: number; actual: number };
    };
    expect(shown.price).to.include({ original: 200, actual: 170 });
    const listed = await call(suite, shop, '/api/products');
    expect(listed.status, listed.text).to.equal(200);
    expect(JSON.stringify(listed.body)).to.contain('"actual":170');

    const added = await call(suite, shop, '/api/cart/add', { json: { product_id: product.id, quantity: 2 } });
    const cartId = (dataOf(added) as { cart_id: string }).cart_id;
    const checkout = await call(suite, shop, '/api/checkout', {
      cartId,
      json: {
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@i44.test',
        customer_phone: '594400031',
        customer_country_code: '966',
        creator_code: 'shop44',
      },
    });
    const data = dataOf(checkout) as { amount: string; checkout_id: number };
    expect(data.amount).to.equal('340.00');
    const row = await suite.deps.knex('checkouts').where('id', data.checkout_id).first();
    expect(row.creator_id).to.equal((creator.body.data as { id: number }).id);
  });
});
