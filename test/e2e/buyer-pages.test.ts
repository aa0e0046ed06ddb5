import { expect } from 'chai';
import http from 'node:http';
import { createApp } from '../../api/app';
import { Product, Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import type { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { createPaymentMethod, createProduct, createStore } from '../helpers/builders';
import { GUEST_BUYER } from '../helpers/checkouts';
import { isolatedDeps } from '../helpers/deps';
import { randomIp } from '../helpers/otp';
import { startWorkers } from '../integration/payments/support';
import { waitFor } from '../integration/queues/support';
import { freePort } from './support';

/**
 * The buyer's pages in a real browser (headless Chromium, JavaScript off): the hosted checkout page in
 * Arabic, right to left, with each method's Arabic name and mark; a guest pays through the sandbox by
 * clicking; the success page names what was bought, the order and how the key arrives. PUBLIC_BASE_URL is
 * this server's own address, so every link and redirect the platform builds is one the browser can follow.
 */
describe('buyer pages in a browser', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;
  let store: Store;
  let product: Product;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await startWorkers(deps);
    store = await createStore({ name: 'متجر أكمي' });
    for (const method of ['card', 'mada', 'stcpay', 'applepay'] as const) {
      await createPaymentMethod(store, { method, provider: 'sandbox' });
    }
    product = await createProduct(store, { name: 'بطاقة لعبة', type: 'code', price_minor: 5_000 });
    await deps.knex('product_codes').insert([
      { product_id: product.id, code: `GAME-${store.id}-0001` },
      { product_id: product.id, code: `GAME-${store.id}-0002` },
    ]);
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function openCheckout(phone: string): Promise<{ checkoutUrl: string; paymentUrl: string }> {
    const res = await fetch(`${base}/api/embed/guest/checkout`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Embed-Key': store.embed_key,
        'X-Forwarded-For': randomIp(),
      },
      body: JSON.stringify({ ...GUEST_BUYER, customer_phone: phone, product_id: product.id, quantity: 1 }),
    });
    const body = (await res.json()) as { data: { checkout_url: string; payment_url: string } };
    expect(res.status).to.equal(200);
    return { checkoutUrl: body.data.checkout_url, paymentUrl: body.data.payment_url };
  }

  it('an Arabic buyer pays by clicking through the sandbox and reads the order and its delivery', async () => {
    const { checkoutUrl, paymentUrl } = await openCheckout('500000301');
    const outside: string[] = [];

    const success = await withPage(
      async (page) => {
        page.on('request', (request) => {
          if (!request.url().startsWith(base)) outside.push(request.url());
        });
        await page.goto(paymentUrl);
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        expect(await page.locator('html').getAttribute('lang')).to.equal('ar');
        // One radio per method, with its Arabic name and a mark; not a row of identical buttons.
        const methods = page.locator('input[name="payment_method"]');
        expect(
          await methods.evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value)),
        ).to.deep.equal(['card', 'mada', 'stcpay', 'applepay']);
        expect(await page.locator('label.method svg.mark').count()).to.equal(4);
        await page.getByLabel('مدى').check();
        expect(await page.getByText('ر.س').first().isVisible()).to.equal(true);

        await page.getByRole('button', { name: /^ادفع .+/ }).click();
        // The sandbox's page, at the redirect_url, in Arabic too.
        await page.waitForURL(/\/pay\/payments\//);
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        await page.getByRole('button', { name: 'ادفع', exact: true }).click();

        // Confirming reloads itself (no JavaScript) until the order exists.
        await page.locator('[data-order-id]').waitFor({ timeout: 20_000 });
        return {
          orderId: await page.locator('[data-order-id]').getAttribute('data-order-id'),
          text: await page.locator('main').innerText(),
          dir: await page.locator('html').getAttribute('dir'),
        };
      },
      { locale: 'ar', javaScriptEnabled: false },
    );

    const status = await fetch(`${base}/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    const data = ((await status.json()) as { data: { is_paid: boolean; order_id: number } }).data;
    expect(data.is_paid).to.equal(true);
    expect(success.orderId).to.equal(String(data.order_id));
    expect(success.dir).to.equal('rtl');
    const order = await deps.knex('orders').where('id', data.order_id).first();
    // The store's own number leads; the platform id is the reference beneath it.
    expect(success.text).to.contain(`#${order.number}`).and.to.contain(`المرجع في المنصة: ${order.id}`);
    expect(success.text).to.contain('بطاقة لعبة');
    expect(success.text).to.contain('واتساب').and.to.contain('+966 ••••••301');
    expect(order.payment_method).to.equal('mada');
    expect(outside).to.deep.equal([]);
  });

  it('speaks English to an English browser, and its switch turns the page Arabic', async () => {
    const { paymentUrl } = await openCheckout('500000302');
    await withPage(
      async (page) => {
        await page.goto(paymentUrl);
        expect(await page.locator('html').getAttribute('dir')).to.equal('ltr');
        expect(await page.getByLabel('Credit card').isChecked()).to.equal(true);
        expect(await page.getByRole('button', { name: /^Pay SAR\s50\.00$/ }).isVisible()).to.equal(true);
        await page.getByRole('link', { name: 'العربية' }).click();
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        expect(await page.getByLabel('بطاقة ائتمانية').isChecked()).to.equal(true);
        // The choice sticks (a cookie): the same address without ?lang= stays Arabic.
        await page.goto(paymentUrl);
        expect(await page.locator('html').getAttribute('lang')).to.equal('ar');
      },
      { locale: 'en-US', javaScriptEnabled: false },
    );
  });

  it('delivers the key the success page promised, by message to the buyer’s phone', async () => {
    const messages = await waitFor('the key in the dev outbox', async () => {
      const res = await fetch(`${base}/__dev/outbox?to=966500000301`);
      const body = (await res.json()) as { messages: { body: string }[] };
      return body.messages.some((m) => m.body.includes(`GAME-${store.id}-0001`)) ? body.messages : undefined;
    });
    expect(messages.map((m) => m.body).join('\n')).to.contain(`GAME-${store.id}-0001`);
  });
});
