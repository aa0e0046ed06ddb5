import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { withPage } from '../../helpers/browser';
import { guestCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { dashboardLogin } from '../dashboard/support';
import { guestInitiate, hostedMethod, orderOf, usePaymentsSuite, waitFor } from '../payments/support';
import { buyer, expectBlocked } from './support';

/**
 * The dashboard's Fraud page (docs/fraud.md), in a real browser: the lists and limits saved through its
 * form, a held order approved (delivered) in one click from the review queue, a claim answered, the refused
 * checkouts with their rule, the risk card on the order page; Arabic right to left.
 */
describe('fraud controls: the dashboard Fraud page', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let keys: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Fraud Page i43' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    keys = await createProduct(store, { type: 'code', price_minor: 40_000, name: 'Console key' });
    await suite.deps
      .knex('product_codes')
      .insert(['CK-1', 'CK-2', 'CK-3'].map((code) => ({ product_id: keys.id, code, status: 'available' })));
  });

  async function signedInPage<T>(
    fn: (page: import('playwright-core').Page) => Promise<T>,
    locale = 'en-US',
  ): Promise<T> {
    const login = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'owner');
    const token = login.cookie.split('=')[1]!;
    return withPage(
      async (page) => {
        await page
          .context()
          .addCookies([{ name: 'matjar_merchant', value: token, url: `${suite.server.url}/merchant` }]);
        return fn(page);
      },
      { locale },
    );
  }

  async function buy(who: Record<string, string>): Promise<number> {
    const checkout = await guestCheckout(suite.server, store, { product_id: keys.id }, who);
    const init = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const redirect = new URL((init.body.data as { redirect_url: string }).redirect_url);
    // The sandbox session is opened by the payments worker: a post before it answers 503, try again.
    await waitFor(
      'the sandbox to take the payment',
      async () => {
        const res = await fetch(`${suite.server.url}${redirect.pathname}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
          body: 'outcome=paid',
        });
        await res.text();
        return res.status === 200 ? true : undefined;
      },
      30_000,
    );
    return (await orderOf(checkout.checkoutId, 30_000)).id;
  }

  it('saves the lists and limits, approves a held order in one click, shows the risk and the refusals', async () => {
    await signedInPage(async (page) => {
      await page.goto(`${suite.server.url}/merchant/fraud?lang=en`);
      await page
        .getByLabel('Blocked e-mails and @domains (one a line)')
        .fill('@fraud.i43.test\nthief@i43.test');
      await page.getByLabel('Blocked IP addresses and CIDR ranges (one a line)').fill('198.51.100.0/24');
      await page.getByLabel('Review a first order above').fill('300');
      await page.getByLabel('Orders per buyer per day').fill('5');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Fraud settings saved.').waitFor();
      expect(await page.getByLabel('Review a first order above').inputValue()).to.equal('300.00');

      // A bad entry is named, nothing saved.
      await page.getByLabel('Blocked IP addresses and CIDR ranges (one a line)').fill('300.1.1.1');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#err-blocked_ips').waitFor();
      expect(await page.locator('#f-blocked_ips').getAttribute('aria-invalid')).to.equal('true');
    });
    const settings = await suite.deps.knex('store_fraud_settings').where('store_id', store.id).first();
    expect(settings.blocked_ips).to.deep.equal(['198.51.100.0/24']);
    expect(Number(settings.review_above_minor)).to.equal(30_000);

    const refused = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { product_id: keys.id, quantity: 1, ...buyer({ customer_email: 'x@fraud.i43.test' }) },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expectBlocked(refused);

    const orderId = await buy(buyer());
    await waitFor('the order to be held', async () => {
      const o = await suite.deps.knex('orders').where('id', orderId).first();
      return o.status === 2 ? o : undefined;
    });

    await signedInPage(async (page) => {
      await page.goto(`${suite.server.url}/merchant/orders/${orderId}?lang=en`);
      expect(await page.locator('[data-risk-score]').getAttribute('data-risk-score')).to.equal('70');
      expect(await page.locator('main').textContent()).to.contain('A first order above the review amount');

      await page.goto(`${suite.server.url}/merchant/fraud?lang=en`);
      const refusals = await page.getByRole('table').last().textContent();
      expect(refusals).to.contain('Blocked domain').and.contain('@fraud.i43.test');
      await page.getByRole('button', { name: `Approve and deliver #${orderId}` }).click();
      await page.getByText(`Order #${orderId} approved: delivering.`).waitFor();
      expect(await page.getByText('No order is waiting for review.').count()).to.equal(1);
    });
    await waitFor('the held order to be delivered', async () => {
      const rows = await suite.deps
        .knex('order_items')
        .where('order_id', orderId)
        .whereNotNull('delivered_at');
      return rows.length > 0 ? rows : undefined;
    });
    expect((await suite.deps.knex('orders').where('id', orderId).first()).status).to.equal(4);
  });

  it('answers a key claim from the page, in Arabic right to left', async () => {
    const orderId = await buy(buyer());
    await waitFor('delivery', async () => {
      const rows = await suite.deps
        .knex('order_items')
        .where('order_id', orderId)
        .whereNotNull('delivered_at');
      return rows.length > 0 ? rows : undefined;
    });
    const code = await suite.deps
      .knex('product_codes')
      .where({ product_id: keys.id, status: 'sold' })
      .first();
    const [claim] = await suite.deps
      .knex('key_claims')
      .insert({ store_id: store.id, order_id: orderId, product_code_id: code.id, buyer_note: 'لا يعمل' })
      .returning('id');
    const claimId = Number((claim as { id: number }).id);
    await signedInPage(async (page) => {
      await page.goto(`${suite.server.url}/merchant/fraud?lang=ar`);
      expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
      expect(await page.locator('h1').textContent()).to.equal('مكافحة الاحتيال');
      await page.getByRole('button', { name: `استبدال المفتاح #${claimId}` }).click();
      await page.getByText('تم اعتماد الطلب: وصل المفتاح الجديد إلى المشتري.').waitFor();
    }, 'ar');
    const decided = await suite.deps.knex('key_claims').where('id', claimId).first();
    expect(decided.status).to.equal('approved');
    expect(decided.replacement_code_id).to.not.equal(null);
  });

  it('refunds a held order in one click: the money goes back, nothing is delivered', async () => {
    await suite.deps.knex('store_fraud_settings').insert({ store_id: store.id, review_above_minor: 10_000 });
    const orderId = await buy(buyer());
    await waitFor('the order to be held', async () => {
      const o = await suite.deps.knex('orders').where('id', orderId).first();
      return o.status === 2 ? o : undefined;
    });
    await signedInPage(async (page) => {
      await page.goto(`${suite.server.url}/merchant/fraud?lang=en`);
      await page.getByRole('button', { name: `Refund #${orderId}` }).click();
      await page.getByText(`Order #${orderId} refunded.`).waitFor();
    });
    const refund = await waitFor('the refund to succeed', async () => {
      const r = await suite.deps.knex('refunds').where('order_id', orderId).first();
      return r?.status === 'succeeded' ? r : undefined;
    });
    expect(Number(refund.amount_minor)).to.equal(40_000);
    expect((await suite.deps.knex('orders').where('id', orderId).first()).status).to.equal(6);
    const delivered = await suite.deps
      .knex('order_items')
      .where('order_id', orderId)
      .whereNotNull('delivered_at');
    expect(delivered).to.have.length(0);
    // The key is back on sale.
    const available = await suite.deps
      .knex('product_codes')
      .where({ product_id: keys.id, status: 'available' });
    expect(available).to.have.length(3);
  });
});
