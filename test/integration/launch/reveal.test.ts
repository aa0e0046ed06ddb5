import { expect } from 'chai';
import { Order, Product, Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { revealGoods, REVEAL_WINDOW_MS } from '../../../shared/services/reveal/reveal';
import {
  browse,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
  waitFor,
} from '../payments/support';
import type { TestServer } from '../../helpers/http';

/**
 * The goods after paying (docs/widget.md, "The goods after paying"): shown by the Embed API's reveal and
 * the hosted payment page to the browser that paid only, for 30 minutes, never after a refund.
 */

const reveal = (server: TestServer, store: Store, body: Record<string, string>) =>
  server.request('/api/embed/order/reveal', {
    method: 'POST',
    json: body,
    headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
  });

/** A page request from a browser holding `cookie` (or none). */
const page = (server: TestServer, url: string, cookie = '') =>
  server.request(new URL(url, server.url).pathname + new URL(url, server.url).search, {
    redirect: 'manual',
    headers: { 'X-Forwarded-For': randomIp(), ...(cookie ? { Cookie: cookie } : {}) },
  });

describe('The goods after paying: only the browser that paid, for a short time, never after a refund', function () {
  this.timeout(40_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;
  let token: string;

  beforeEach(async () => {
    store = await createStore({ name: 'Reveal Store' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'Gift card', type: 'code', price_minor: 5_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: product.id, code: `GIFT-${store.id}-0001` },
      { product_id: product.id, code: `GIFT-${store.id}-0002` },
    ]);
    token = await merchantToken(store);
  });

  async function payThroughSandbox(phone: string) {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: phone, customer_email: 'buyer@i40.test' },
    );
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
    await sessionOf(paymentIdOf(redirectUrl));
    return { checkout, redirectUrl };
  }

  it('the widget’s browser sees the key with its reveal token; a wrong token, another store or no order see nothing', async () => {
    const checkoutAnswer = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'Huda',
        customer_last_name: 'Test',
        customer_email: 'huda@i40.test',
        customer_phone: '594000202',
        customer_country_code: '966',
      },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(checkoutAnswer.status, checkoutAnswer.text).to.equal(200);
    const data = checkoutAnswer.body.data as { checkout_url: string; reveal_token: string };
    expect(data.reveal_token).to.match(/^[A-Za-z0-9_-]{43}$/);
    // Only its hash is kept.
    const row = await suite.deps.knex('checkouts').where('store_id', store.id).orderBy('id', 'desc').first();
    expect(JSON.stringify(row)).to.not.contain(data.reveal_token);

    // Not paid yet: nothing to show.
    const early = await reveal(suite.server, store, {
      checkout_url: data.checkout_url,
      reveal_token: data.reveal_token,
    });
    expect(early.status, early.text).to.equal(200);
    expect(early.body.data).to.deep.equal({
      state: 'hidden',
      reason: 'not_paid',
      order_id: null,
      order_number: null,
    });

    const init = await guestInitiate(suite.server, store, data.checkout_url, 'card');
    const redirectUrl = (init.body.data as { redirect_url: string }).redirect_url;
    await sessionOf(paymentIdOf(redirectUrl));
    const decided = await browse(suite.server, redirectUrl, { outcome: 'paid' });
    expect(decided.status).to.be.oneOf([200, 303]);
    const order = await waitFor('the order paid', async () => {
      const o = await Order.query().findOne({ store_id: store.id, customer_phone: '594000202' });
      return o && (o.status === 3 || o.status === 4) ? o : undefined;
    });

    const shown = await reveal(suite.server, store, {
      checkout_url: data.checkout_url,
      reveal_token: data.reveal_token,
    });
    expect(shown.status, shown.text).to.equal(200);
    expect(shown.headers.get('cache-control')).to.equal('no-store');
    const goods = shown.body.data as {
      state: string;
      order_id: number;
      order_number: number;
      items: { codes: string[] }[];
      sent_to: { phone: string; email: string };
    };
    expect(goods.state).to.equal('shown');
    expect(goods.order_id).to.equal(order.id);
    expect(goods.order_number).to.equal(order.number);
    expect(goods.items[0]!.codes).to.deep.equal([`GIFT-${store.id}-0001`]);
    expect(goods.sent_to).to.deep.equal({ phone: '+966 ••••••202', email: 'h•••@i40.test' });

    // The checkout URL alone (the merchant's payment link names it) is not enough.
    const wrong = await reveal(suite.server, store, {
      checkout_url: data.checkout_url,
      reveal_token: 'x'.repeat(43),
    });
    expect(wrong.status).to.equal(404);
    expect(wrong.body).to.deep.include({ success: false, error_code: 'checkout_not_found' });
    // Another checkout's token does not open this one.
    const otherToken = (
      await suite.server.request('/api/embed/guest/checkout', {
        method: 'POST',
        json: {
          ...{ product_id: product.id, quantity: 1 },
          customer_first_name: 'A',
          customer_last_name: 'B',
          customer_email: 'a@i40.test',
          customer_phone: '594000203',
          customer_country_code: '966',
        },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      })
    ).body.data as { reveal_token: string };
    const crossed = await reveal(suite.server, store, {
      checkout_url: data.checkout_url,
      reveal_token: otherToken.reveal_token,
    });
    expect(crossed.status).to.equal(404);
    // Another store's embed key does not open it.
    const other = await createStore();
    const foreign = await reveal(suite.server, other, {
      checkout_url: data.checkout_url,
      reveal_token: data.reveal_token,
    });
    expect(foreign.status).to.equal(404);
    // A bad body is a 422 naming the field.
    const bad = await reveal(suite.server, store, { checkout_url: data.checkout_url } as Record<
      string,
      string
    >);
    expect(bad.status).to.equal(422);
    expect(JSON.stringify(bad.body)).to.contain('reveal_token');

    // Past the window: hidden (the service judged 30 minutes and a second after the order).
    const later = new Date(new Date(order.created_at).getTime() + REVEAL_WINDOW_MS + 1000);
    const expired = await revealGoods(
      suite.deps,
      { checkoutUrl: data.checkout_url, revealToken: data.reveal_token },
      later,
    );
    expect(expired).to.deep.equal({
      state: 'hidden',
      reason: 'expired',
      order_id: order.id,
      order_number: order.number,
    });

    // Refunded: never again.
    const refund = await suite.server.request(`/shawarma/orders/${order.id}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(refund.status, refund.text).to.equal(200);
    const after = await reveal(suite.server, store, {
      checkout_url: data.checkout_url,
      reveal_token: data.reveal_token,
    });
    expect(after.body.data).to.deep.equal({
      state: 'hidden',
      reason: 'withdrawn',
      order_id: order.id,
      order_number: order.number,
    });
    expect(after.text).to.not.contain('GIFT-');
  });

  it('the hosted payment page shows the key to the browser that opened it to pay, not to another, and says refunded after a refund', async () => {
    const { checkout, redirectUrl } = await payThroughSandbox('594000211');
    // The buyer's browser opens the payment page first: it is given the reveal cookie.
    const first = await page(suite.server, redirectUrl);
    expect(first.status).to.equal(200);
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).to.match(
      /^matjar_reveal_\d+=[A-Za-z0-9_-]{43}; Path=\/pay\/; HttpOnly; SameSite=Lax; Max-Age=7200/,
    );
    const cookie = setCookie.split(';')[0]!;
    // A second browser opening the same page later is not given one.
    const second = await page(suite.server, redirectUrl);
    expect(second.headers.get('set-cookie') ?? '').to.not.contain('matjar_reveal_');

    const paid = await browse(suite.server, redirectUrl, { outcome: 'paid' });
    expect(paid.status).to.be.oneOf([200, 303]);
    const order = await orderOf(checkout.checkoutId);
    await waitFor('the order paid', async () => {
      const o = await Order.query().findById(order.id);
      return o && (o.status === 3 || o.status === 4) ? o : undefined;
    });
    const back = `${redirectUrl}?return=1`;
    const mine = await waitFor('the paid page', async () => {
      const res = await page(suite.server, back, cookie);
      return res.text.includes('data-goods') ? res : undefined;
    });
    expect(mine.text).to.contain(`GIFT-${store.id}-0001`).and.to.contain(`#${order.number}`);
    expect(mine.text).to.contain('+966 ••••••211');
    const theirs = await page(suite.server, back);
    expect(theirs.text).to.contain('your payment was received');
    expect(theirs.text).to.not.contain(`GIFT-${store.id}`);
    // A forged cookie shows nothing either.
    const forged = await page(suite.server, back, `${cookie.split('=')[0]}=${'A'.repeat(43)}`);
    expect(forged.text).to.not.contain(`GIFT-${store.id}`);

    const refund = await suite.server.request(`/shawarma/orders/${order.id}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(refund.status, refund.text).to.equal(200);
    for (const url of [back, `/pay/${checkout.checkoutUrl}`]) {
      const after = await page(suite.server, url, cookie);
      expect(after.status).to.equal(200);
      expect(after.text).to.contain('This order was refunded').and.to.contain('data-order-state="refunded"');
      expect(after.text).to.not.contain('your payment was received');
      expect(after.text).to.not.contain(`GIFT-${store.id}`);
    }
    const arabic = await page(suite.server, `${back}&lang=ar`, cookie);
    expect(arabic.text).to.contain('تم استرداد مبلغ هذا الطلب');
  });
});
