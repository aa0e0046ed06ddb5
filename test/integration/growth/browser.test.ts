import { expect } from 'chai';
import { utcToLocalInput } from '../../../shared/i18n/local-time';
import { withPage } from '../../helpers/browser';
import { randomIp } from '../../helpers/otp';
import { dashboardLogin } from '../dashboard/support';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { isolatedDeps } from '../../helpers/deps';
import { httpClient } from '../../helpers/http';
import { type RunningPaymentsSuite, startWorkers, usePaymentsSuite } from '../payments/support';
import { embedCheckout, growthStore, merchant, waitFor } from './support';

/**
 * Growth in Chromium: the dashboard's sales and creators page (Arabic, labels, a form filled by the
 * keyboard), and a buyer recovering a purchase from the reminder's link through the sandbox.
 */
describe('Growth: dashboard page and a recovered purchase in Chromium', function () {
  this.timeout(120_000);
  const suite = usePaymentsSuite();

  it('schedules a sale and adds a creator from the Arabic dashboard page', async () => {
    const g = await growthStore(suite);
    const login = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, g.store.id, 'owner');
    const token = login.cookie.split('=')[1]!;
    await withPage(
      async (page) => {
        await page
          .context()
          .addCookies([{ name: 'matjar_merchant', value: token, url: `${suite.server.url}/merchant` }]);
        const res = await page.goto(`${suite.server.url}/merchant/growth?lang=ar`);
        expect(res?.status()).to.equal(200);
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        expect(await page.locator('[data-figure="sent"]').innerText()).to.equal('0');

        // A bad sale: both a percent and an amount, the error named by the field.
        await page.getByLabel('الاسم').first().fill('الجمعة البيضاء');
        await page.getByLabel('نسبة الخصم').fill('20');
        await page.getByLabel('مبلغ الخصم').fill('5');
        await page.getByLabel('المنتجات').selectOption(String(g.products.ebook));
        // The form takes the store's wall time (Asia/Riyadh, the default zone).
        const start = utcToLocalInput(new Date(Date.now() - 3_600_000), 'Asia/Riyadh');
        const end = utcToLocalInput(new Date(Date.now() + 3_600_000), 'Asia/Riyadh');
        await page.getByLabel('يبدأ (بتوقيت المتجر)').fill(start);
        await page.getByLabel('ينتهي (بتوقيت المتجر)').fill(end);
        await page.getByRole('button', { name: 'جدولة التخفيض' }).click();
        expect(await page.locator('#sale-amount').getAttribute('aria-invalid')).to.equal('true');
        expect(await page.getByRole('alert').first().isVisible()).to.equal(true);

        // Fixed by the keyboard: clear the amount, submit with Enter.
        await page.getByLabel('مبلغ الخصم').fill('');
        await page.getByLabel('مبلغ الخصم').press('Enter');
        await page.waitForURL(/\/merchant\/growth\?saved=1/);
        const row = page.locator('tr', { hasText: 'الجمعة البيضاء' });
        expect(await row.innerText())
          .to.contain('20.00%')
          .and.contain('جارٍ');

        await page.getByLabel('الاسم').nth(1).fill('نورة');
        await page.getByLabel('الرمز').fill('NOURA44');
        await page.getByLabel('العمولة ٪').fill('10');
        await page.getByRole('button', { name: 'إضافة صانع المحتوى' }).click();
        expect(await page.locator('code[dir="ltr"]').first().innerText()).to.match(/\/creators\//);
        expect(await page.locator('tr', { hasText: 'NOURA44' }).isVisible()).to.equal(true);

        // The reminder settings: an unknown coupon is named; a delay alone saves.
        await page.getByLabel('التذكير بعد (دقائق؛ 0: أبداً)').fill('45');
        await page.getByLabel('الكوبون المذكور في التذكير (اختياري)').fill('NOPE');
        await page.getByRole('button', { name: 'حفظ إعدادات التذكير' }).click();
        expect(
          await page.locator('#recovery-abandoned_checkout_coupon').getAttribute('aria-invalid'),
        ).to.equal('true');
        await page.getByLabel('الكوبون المذكور في التذكير (اختياري)').fill('');
        await page.getByRole('button', { name: 'حفظ إعدادات التذكير' }).click();
        await page.waitForURL(/\/merchant\/growth\?saved=1/);
        expect(await page.getByLabel('التذكير بعد (دقائق؛ 0: أبداً)').inputValue()).to.equal('45');
      },
      { locale: 'ar' },
    );
    // The sale is the price the Embed API answers.
    const product = await suite.server.request(`/api/embed/product/${g.products.ebook}`, {
      headers: { 'X-Embed-Key': g.store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect((product.body.data as { price: { actual: number } }).price.actual).to.equal(80);
    const settings = await merchant(suite, g, 'GET', '/shawarma/store');
    expect((settings.body.data as { settings: unknown }).settings).to.deep.include({
      abandoned_checkout_minutes: 45,
      abandoned_checkout_coupon: null,
    });
  });
});

/**
 * The buyer's side runs against a server listening at PUBLIC_BASE_URL itself, so the addresses in the
 * reminder and the redirects it leads to are the ones a browser follows in production.
 */
describe('Growth: a recovered purchase from a reminder link in Chromium', function () {
  this.timeout(120_000);
  let own: RunningPaymentsSuite & { close(): Promise<void> };

  before(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const deps = await isolatedDeps({ TRUST_PROXY: '1', PUBLIC_BASE_URL: url });
    const server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const workers = await startWorkers(deps);
    const client = httpClient(url, deps.config.nodeEnv);
    own = {
      deps,
      server: client,
      async close() {
        await workers.close(1_000);
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  });
  after(async () => {
    await own?.close();
  });

  it('a buyer follows the reminder’s link in the browser, pays through the sandbox, and it counts as recovered', async () => {
    const suite = own;
    const g = await growthStore(suite, { settings: { abandoned_checkout_minutes: 15 } });
    const phone = '594409001';
    const opened = await embedCheckout(
      suite,
      g,
      { product_id: g.products.game, customer_phone: phone, customer_email: 'reminded@i44.test' },
      { 'Accept-Language': 'en' },
    );
    expect(opened.status, opened.text).to.equal(200);
    const checkoutId = (opened.body.data as { checkout_id: number }).checkout_id;
    await suite.deps
      .knex('checkouts')
      .where('id', checkoutId)
      .update({ created_at: new Date(Date.now() - 20 * 60_000) });
    const ran = await suite.server.request('/__dev/tasks/abandoned-checkouts', { method: 'POST' });
    expect(ran.status).to.equal(200);
    const email = await waitFor(
      'the reminder e-mail',
      async () => {
        const res = await suite.server.request('/__dev/outbox?to=reminded%40i44.test');
        const messages = (res.body as unknown as { messages: { body: string }[] }).messages;
        return messages[0];
      },
      30_000,
    );
    const link = /https?:\/\/\S+\/r\/\d+-[0-9a-f]{32}(?=\s|$)/.exec(email.body)?.[0];
    expect(link, email.body).to.be.a('string');

    const orderId = await withPage(
      async (page) => {
        await page.goto(link!);
        await page.waitForURL(/\/pay\//);
        await page.getByRole('button', { name: /^Pay / }).click();
        await page.waitForURL(/\/pay\/payments\//);
        await page.getByRole('button', { name: 'Pay', exact: true }).click();
        await page.locator('[data-order-id]').waitFor({ timeout: 20_000 });
        return page.locator('[data-order-id]').getAttribute('data-order-id');
      },
      { locale: 'en', javaScriptEnabled: false },
    );
    expect(Number(orderId)).to.be.above(0);
    const figures = await merchant(suite, g, 'GET', '/shawarma/abandoned-checkouts');
    expect(figures.body.data).to.include({
      reminders_sent: 1,
      checkouts_recovered: 1,
      revenue_recovered: '50.00',
    });
  });
});
