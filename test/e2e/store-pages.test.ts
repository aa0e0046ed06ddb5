import { expect } from 'chai';
import http from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import QRCode from 'qrcode';
import { createApp } from '../../api/app';
import type { Deps } from '../../shared/deps';
import { createSession } from '../../shared/services/staff/sessions';
import { loadFixture } from '../../shared/services/seed';
import type { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { isolatedDeps } from '../helpers/deps';
import { startWorkers } from '../integration/payments/support';
import { freePort } from './support';

/**
 * A purchase from a store's product page in a real browser (headless Chromium, JavaScript off, a 390 px
 * phone screen, Arabic): the store page, the product page, its buy control, the hosted checkout in the
 * same tab, the sandbox's page, and the paid page with the order id, how the goods arrive and the
 * account link. PUBLIC_BASE_URL is this server's own address, so every link the platform builds is one
 * the browser can follow. `STORE_PAGES_SCREENSHOTS=<dir>` keeps a screenshot of each step there (the
 * pictures of docs/store-pages.md).
 */

const PHONE = { width: 390, height: 844 };

async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.STORE_PAGES_SCREENSHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`) });
}

describe('store pages in a browser', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await startWorkers(deps);
    await loadFixture(deps, {
      stores: [
        {
          ref: 'i42-browser',
          slug: 'i42-browser',
          name: 'متجر الأكواد',
          currency: 'SAR',
          description: 'بطاقات وألعاب تصلك خلال دقيقة',
          accent_color: '#0f766e',
          payment_methods: { card: { provider: 'sandbox' }, mada: { provider: 'sandbox' } },
          categories: [{ ref: 'games', name: 'Games', name_ar: 'ألعاب', slug: 'games' }],
          products: [
            {
              ref: 'card',
              name: 'Game card',
              name_ar: 'بطاقة لعبة',
              description: 'A 50 SAR game card.',
              description_ar: 'بطاقة شحن بقيمة 50 ريال.',
              slug: 'game-card',
              type: 'code',
              price: '50.00',
              sale_price: '45.00',
              categories: ['games'],
              codes: ['I42-B-0001', 'I42-B-0002'],
              fields: [{ type: 'text', label: 'Player name', label_ar: 'اسم اللاعب', required: true }],
            },
          ],
        },
      ],
    });
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('buys from the product page through the sandbox to the order id, on a phone, in Arabic', async () => {
    const outside: string[] = [];
    const result = await withPage(
      async (page) => {
        page.on('request', (request) => {
          if (!request.url().startsWith(base)) outside.push(request.url());
        });
        await page.goto(`${base}/s/i42-browser?lang=ar`);
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        // Nothing wider than the phone's screen.
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(
          PHONE.width,
        );
        await shot(page, 'store-pages-home-ar-phone');
        await page.getByRole('link', { name: /بطاقة لعبة/ }).click();
        await page.waitForURL(/\/s\/i42-browser\/p\/game-card\?lang=ar$/);
        expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('بطاقة لعبة');
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(
          PHONE.width,
        );
        await shot(page, 'store-pages-product-ar-phone');

        await page.getByRole('link', { name: 'اشترِ الآن' }).click();
        await page.waitForURL(/\/s\/i42-browser\/checkout\/game-card/);
        await page.getByLabel('الاسم الأول').fill('نورة');
        await page.getByLabel('اسم العائلة').fill('صالح');
        await page.getByLabel('البريد الإلكتروني').fill('noura@i42.test');
        await page.getByLabel('رقم الجوال').fill('594200301');
        await page.getByLabel('اسم اللاعب').fill('Noura99');
        await page.getByLabel('مدى').check();
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).to.be.at.most(
          PHONE.width,
        );
        await shot(page, 'store-pages-checkout-ar-phone');
        await page.getByRole('button', { name: 'المتابعة إلى الدفع' }).click();

        // The sandbox provider's page (the platform's payment page), in Arabic too, in the same tab.
        await page.waitForURL(/\/pay\/payments\//);
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        await page.getByRole('button', { name: 'ادفع', exact: true }).click();
        await page
          .locator('[data-order-id]')
          .waitFor({ timeout: 20_000 })
          .catch(async (err: unknown) => {
            console.log('the page instead:', page.url(), await page.locator('body').innerText());
            throw err;
          });
        await shot(page, 'store-pages-paid-ar-phone');
        return {
          orderId: await page.locator('[data-order-id]').getAttribute('data-order-id'),
          text: await page.locator('main').innerText(),
          account: await page.locator('a[data-account-link]').getAttribute('href'),
          pages: 1,
        };
      },
      { locale: 'ar', javaScriptEnabled: false, viewport: PHONE, isMobile: true, hasTouch: true },
    );
    const order = await deps.knex('orders').where('id', Number(result.orderId)).first();
    expect(order.customer_phone).to.equal('594200301');
    expect(order.payment_method).to.equal('mada');
    expect(result.text).to.contain(`#${order.number}`);
    expect(result.text).to.contain('بطاقة لعبة').and.to.contain('واتساب');
    expect(result.account).to.equal('/account?lang=ar');
    expect(outside).to.deep.equal([]);
  });

  it('gives the merchant the product’s link, its QR code and copy buttons on the dashboard', async () => {
    const store = await deps.knex('stores').where('slug', 'i42-browser').first();
    const product = await deps.knex('products').where({ store_id: store.id, slug: 'game-card' }).first();
    const [user] = await deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: '594200901', e164: '966594200901' })
      .returning('id');
    const userId = (user as { id: number }).id;
    await deps.knex('store_members').insert({ store_id: store.id, merchant_user_id: userId, role: 'owner' });
    const token = await createSession(deps.knex, userId, store.id, 'test');
    const link = `${base}/s/i42-browser/p/game-card`;

    const seen = await withPage(
      async (page) => {
        await page.context().addCookies([{ name: 'matjar_merchant', value: token, url: `${base}/merchant` }]);
        await page.goto(`${base}/merchant/products/${product.id}?lang=en`);
        // The product form takes the Arabic name and description too.
        expect(await page.getByLabel(/^Name in Arabic/).inputValue()).to.equal('بطاقة لعبة');
        await page.getByLabel(/^Name in Arabic/).fill('بطاقة الألعاب');
        await page.getByLabel(/^Description in Arabic/).fill('شحن فوري');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.waitForURL(/saved=1/);
        expect(await page.getByLabel('Buy link (this product’s page)').inputValue()).to.equal(link);
        // One share card: the link, its QR code and the widget snippet, each Copy saying "Copied" beside it.
        expect(await page.locator('[data-share]').count()).to.equal(1);
        await page.getByRole('button', { name: 'Copy link' }).click();
        await page
          .locator('form[data-copy-form="share-link"] [data-copy-status]')
          .filter({ hasText: 'Copied' })
          .waitFor();
        const copiedLink = await page.evaluate<string>('navigator.clipboard.readText()');
        await page.getByRole('button', { name: 'Copy snippet' }).click();
        await page
          .locator('form[data-copy-form="product-snippet"] [data-copy-status]')
          .filter({ hasText: 'Copied' })
          .waitFor();
        const copiedSnippet = await page.evaluate<string>('navigator.clipboard.readText()');
        await shot(page, 'store-pages-dashboard-share-en');
        return {
          copiedLink,
          copiedSnippet,
          qr: await page.locator('[data-qr]').innerHTML(),
          qrLabel: await page.getByRole('img', { name: 'QR code of the buy link' }).count(),
        };
      },
      {
        locale: 'en-US',
        permissions: ['clipboard-read', 'clipboard-write'],
        viewport: { width: 1200, height: 900 },
      },
    );
    expect(seen.copiedLink).to.equal(link);
    expect(seen.copiedSnippet)
      .to.contain(`data-matjar-product="${product.id}"`)
      .and.to.contain(store.embed_key);
    // The QR code is the one of the link itself (made the same way, it matches mark for mark).
    const expected = await QRCode.toString(link, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 2,
      width: 176,
    });
    const marks = (svg: string): string[] => [...svg.matchAll(/ d="([^"]+)"/g)].map((m) => m[1]);
    expect(marks(seen.qr)).to.have.length(2);
    expect(marks(seen.qr)).to.deep.equal(marks(expected));
    expect(seen.qrLabel).to.equal(1);
    // And the link it carries opens the product page, in Arabic with the name the form saved.
    const arabic = await fetch(`${link}?lang=ar`);
    expect(arabic.status).to.equal(200);
    expect(await arabic.text())
      .to.contain('<h1><bdi>بطاقة الألعاب</bdi></h1>')
      .and.to.contain('شحن فوري');
  });

  it('shows the English store page on a desktop screen', async () => {
    await withPage(
      async (page) => {
        await page.goto(`${base}/s/i42-browser/p/game-card?lang=en`);
        expect(await page.locator('html').getAttribute('dir')).to.equal('ltr');
        expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Game card');
        await shot(page, 'store-pages-product-en-desktop');
      },
      { locale: 'en-US', javaScriptEnabled: false, viewport: { width: 1200, height: 800 } },
    );
  });
});
