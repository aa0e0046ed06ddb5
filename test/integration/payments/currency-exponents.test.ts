import crypto from 'node:crypto';
import { expect } from 'chai';
import { Order, Product, Store } from '../../../db/models';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import { merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  completionOf,
  guestInitiate,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
} from './support';

const SECRET_KEY = 'sk_test_kwd';
const WEBHOOK_SECRET = 'whsec_kwd_moyasar';

/**
 * Minor units follow ISO 4217 (shared/currency.ts) end to end: a KWD price of "12.345" is 12,345 fils in
 * the database, 12,345 fils at Moyasar (whose amounts are in the currency's smallest unit), "12.345" in
 * every answer and on the payment page, and the webhook's amount reconciles exactly. Before, every
 * currency was read with two decimals: a KWD buyer paid a tenth of the price.
 */
describe('Money in every currency: ISO 4217 minor units', function () {
  this.timeout(30_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  const suite = usePaymentsSuite({ fake: { server: moyasar, urlVariable: 'MOYASAR_API_URL' } });

  const fixtureStore = (currency: string, price: string, extra: Record<string, unknown> = {}) => ({
    ref: `s${crypto.randomBytes(4).toString('hex')}`,
    name: `${currency} shop`,
    currency,
    plan: 'paid',
    payment_methods: {
      card: { provider: 'moyasar', secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET },
    },
    products: [{ ref: 'item', name: 'Item', slug: 'item', type: 'product', price }],
    ...extra,
  });

  async function seeded(currency: string, price: string, extra: Record<string, unknown> = {}) {
    const f = fixtureStore(currency, price, extra);
    const manifest = await loadFixture(suite.deps, { stores: [f] });
    const ids = manifest.stores[f.ref]!;
    const store = await Store.query(suite.deps.knex).findById(ids.id).throwIfNotFound();
    const product = await Product.query(suite.deps.knex).findById(ids.products.item!.id).throwIfNotFound();
    return { store, product };
  }

  it('KWD: 3 decimals from the fixture to Moyasar, the answers, the payment page and the order', async () => {
    const { store, product } = await seeded('KWD', '12.345', {
      coupons: [
        { code: 'OFF1', type: 'fixed', amount: '1.005', min_order: '2.500' },
        { code: 'BIG', type: 'fixed', amount: '1.000', min_order: '30.000' },
      ],
    });
    expect(product.price_minor).to.equal(12_345);

    const shown = await suite.server.request(`/api/embed/product/${product.id}`, {
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(shown.status, shown.text).to.equal(200);
    expect((shown.body.data as { price: unknown }).price).to.deep.equal({
      original: 12.345,
      actual: 12.345,
      formatted: '12.345 KWD',
      currency: 'KWD',
    });

    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id, quantity: 2, coupon_code: 'OFF1' },
      { customer_phone: '500000731' },
    );
    // 2 × 12.345 - 1.005 = 23.685
    expect(checkout.amount).to.equal('23.685');
    const refused = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: product.id,
        quantity: 1,
        coupon_code: 'BIG',
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_phone: '500000733',
        customer_country_code: '966',
      },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.message).to.equal('Minimum order value is 30.000');

    const page = await browse(suite.server, checkout.paymentUrl);
    expect(page.text).to.contain('23.685');
    expect(page.text).to.not.contain('236.85');

    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
    const payment = await sessionOf(paymentIdOf(redirectUrl));
    const invoice = moyasar.invoices.get(payment.provider_payment_id ?? '');
    expect(invoice, 'the Moyasar invoice').to.exist;
    expect(invoice!.amount, 'fils, not a tenth of the price').to.equal(23_685);
    expect(invoice!.currency).to.equal('KWD');

    moyasar.pay(invoice!.id);
    const hook = await suite.server.request('/webhooks/moyasar', {
      method: 'POST',
      body: moyasar.webhook(invoice!.id, WEBHOOK_SECRET, { eventId: `evt-kwd-${invoice!.id}` }),
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
    });
    expect(hook.status, hook.text).to.equal(200);
    const order = await orderOf(checkout.checkoutId);
    await completionOf(order.id);
    expect((await Order.query(suite.deps.knex).findById(order.id))!.total_minor).to.equal(23_685);

    const detail = await suite.server.request(`/shawarma/orders/${order.id}`, {
      headers: { Authorization: `Bearer ${await merchantToken(store)}` },
    });
    expect(detail.status, detail.text).to.equal(200);
    const data = detail.body.data as { total: string; currency: string; items: { unit_price: string }[] };
    expect(data).to.include({ total: '23.685', currency: 'KWD' });
    expect(data.items[0]!.unit_price).to.equal('12.345');
  });

  it('JPY: no decimals; "500" is 500 yen at Moyasar and in every answer', async () => {
    const { store, product } = await seeded('JPY', '500');
    expect(product.price_minor).to.equal(500);
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id, quantity: 3 },
      { customer_phone: '500000732' },
    );
    expect(checkout.amount).to.equal('1500');
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const payment = await sessionOf(paymentIdOf((res.body.data as { redirect_url: string }).redirect_url));
    expect(moyasar.invoices.get(payment.provider_payment_id ?? '')!.amount).to.equal(1_500);
  });

  it('refuses an unknown currency and more decimals than the currency has, naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [fixtureStore('XYZ', '1.00'), 'stores[0].currency', /currency the platform supports/],
      [fixtureStore('KWD', '1.2345'), 'stores[0].products[0].price', /decimal/],
      [fixtureStore('SAR', '1.234'), 'stores[0].products[0].price', /at most two decimals/],
      [fixtureStore('JPY', '500.5'), 'stores[0].products[0].price', /JPY has no decimals/],
      [
        fixtureStore('BHD', '1.000', { coupons: [{ code: 'X', type: 'fixed', amount: '0.0005' }] }),
        'stores[0].coupons[0].amount',
        /decimal/,
      ],
    ];
    for (const [store, path, message] of cases) {
      const err = await loadFixture(suite.deps, { stores: [store] }).catch((e: unknown) => e);
      expect(err, path).to.be.instanceOf(FixtureError);
      expect((err as FixtureError).path).to.equal(path);
      expect((err as Error).message).to.match(message);
    }
    // Trailing zeros past the currency's decimals are exact: "500.00" JPY is 500 yen.
    const { product } = await seeded('JPY', '500.00');
    expect(product.price_minor).to.equal(500);
  });
});
