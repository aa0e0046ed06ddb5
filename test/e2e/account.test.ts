import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApp } from '../../api/app';
import type { Order, Product, Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import type { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { createProduct, createStore, merchantToken } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { httpClient, type TestServer } from '../helpers/http';
import { deliverQueuedOtps } from '../helpers/otp';
import { buy, latestEmail } from '../integration/account/support';
import { dashboardLogin } from '../integration/dashboard/support';
import { upload } from '../integration/files/support';
import { licensedProduct } from '../integration/license/support';
import { hostedMethod, startWorkers } from '../integration/payments/support';
import {
  MerchantClient,
  subscribeThroughSandbox,
  subscriptionProduct,
  waitFor,
} from '../integration/subscriptions/support';
import { freePort } from './support';
import { createBuyerSession } from '../../shared/services/account/sessions';

/**
 * The buyer's account in headless Chromium (docs/account.md), driven as the operator contract describes
 * it: /account, the phone (tel-country-code, tel-national) and the code from the dev outbox in the
 * one-time-code input, or the e-mail and the link from the outbox; then orders of two stores with keys as
 * text, a download, a deactivation that lets /verify activate a new machine, a cancel and a resume, a
 * review published after moderation; Arabic at 360 px; axe-core.
 */
describe('the buyer’s account in a browser', function () {
  this.timeout(180_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;
  let api: TestServer;
  let acme: Store;
  let beta: Store;
  let card: Product;
  let app: Product;
  let guide: Product;
  const bytes = crypto.randomBytes(30_000);
  const P1 = { phone: '594100011', email: 'browser@i41.test' };
  const orders: Record<string, Order> = {};
  let subscriptionId: number;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({
      PUBLIC_BASE_URL: base,
      TRUST_PROXY: '1',
      MOYASAR_API_URL: 'http://127.0.0.1:9',
      COINBASE_API_URL: 'http://127.0.0.1:9',
    });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await startWorkers(deps);
    api = httpClient(base, deps.config.nodeEnv);
    acme = await createStore({ name: 'Acme Keys' });
    beta = await createStore({ name: 'Beta Apps' });
    for (const s of [acme, beta]) await hostedMethod(deps, s, 'card', 'sandbox');
    card = await createProduct(acme, { name: 'Game card', type: 'code', price_minor: 4_000 });
    await deps.knex('product_codes').insert({ product_id: card.id, code: 'GC-BROWSER-0001' });
    app = await licensedProduct(beta, deps.cipher, {
      name: 'Desktop app',
      price_minor: 9_900,
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    guide = await createProduct(beta, { name: 'Guide', type: 'product', price_minor: 1_500 });
    const uploaded = await upload(api, await merchantToken(beta), guide.id, bytes, 'guide.pdf');
    expect(uploaded.status, uploaded.text).to.equal(201);
    orders.card = await buy(deps, api, acme, card, P1);
    orders.app = await buy(deps, api, beta, app, P1);
    orders.guide = await buy(deps, api, beta, guide, P1);
    const { monthly } = await subscriptionProduct(acme, { name: 'Pro plan' });
    const subscribed = await subscribeThroughSandbox(deps, api, acme, monthly, P1.phone);
    subscriptionId = subscribed.subscription.id;
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function codeFromOutbox(e164: string, before: number): Promise<string> {
    const messages = async () => {
      await deliverQueuedOtps(deps);
      const res = await fetch(`${base}/__dev/outbox?to=${e164}`);
      return ((await res.json()) as { messages: { body: string }[] }).messages;
    };
    const list = await waitFor('the code', async () => {
      const all = await messages();
      return all.length > before ? all : undefined;
    });
    const match = list[0]!.body.match(/(?<!\d)\d{4,8}(?!\d)/g);
    expect(match, `a code for ${e164}`).to.have.length(1);
    return match![0];
  }

  const outboxCount = async (to: string) =>
    (
      (await (await fetch(`${base}/__dev/outbox?to=${encodeURIComponent(to)}`)).json()) as {
        messages: unknown[];
      }
    ).messages.length;

  /** Signs in by phone in the page as a buyer would, optionally with a wrong code first. */
  async function signInByPhone(page: Page, lang: 'en' | 'ar', wrongFirst = false): Promise<void> {
    await page.goto(`${base}/account?lang=${lang}`);
    expect(await page.locator('[autocomplete="tel-country-code"]').inputValue()).to.equal('966');
    const before = await outboxCount(`966${P1.phone}`);
    await page.locator('input[autocomplete="tel-national"]').fill(P1.phone);
    await page.locator('form[action="/account/signin/phone"] button[type="submit"]').click();
    await page.waitForURL(/\/account\/code/);
    const code = await codeFromOutbox(`966${P1.phone}`, before);
    const input = page.locator('input[autocomplete="one-time-code"]');
    if (wrongFirst) {
      await input.fill(String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0'));
      await page.locator('form[action="/account/code"] button').click();
      expect(await page.getByRole('alert').innerText()).to.contain('2 tries left');
      expect(await page.locator('input[autocomplete="one-time-code"]').count()).to.equal(1);
    }
    await page.locator('input[autocomplete="one-time-code"]').fill(code);
    await page.locator('form[action="/account/code"] button').click();
    await page.waitForURL(`${base}/account`);
  }

  /**
   * Opens /account signed in as P1 through a session made directly (the sign-in form itself is driven by
   * the tests above; doing it for every test would run into the per-phone code limits).
   */
  async function openSignedIn(page: Page, lang: 'en' | 'ar'): Promise<void> {
    const token = await createBuyerSession(deps.knex, { kind: 'phone', value: `966${P1.phone}` }, 'test');
    await page.context().addCookies([{ name: 'matjar_account', value: token, url: `${base}/account` }]);
    await page.goto(`${base}/account?lang=${lang}`);
  }

  it('signs in by phone (a wrong code first) and shows the orders of two stores with their keys', async () => {
    await withPage(async (page) => {
      await signInByPhone(page, 'en', true);
      const text = await page.locator('main').innerText();
      for (const o of Object.values(orders)) expect(text).to.contain(`Order ${o.id}`);
      expect(text).to.contain('Acme Keys').and.to.contain('Beta Apps');
      expect(text).to.contain('GC-BROWSER-0001');
      const license = (await deps.knex('licenses').where({ order_id: orders.app!.id }).first('key')) as {
        key: string;
      };
      expect(await page.locator('[data-license]').first().innerText()).to.equal(license.key);
      const cookies = await page.context().cookies();
      const session = cookies.find((c) => c.name === 'matjar_account');
      expect(session).to.include({ httpOnly: true, sameSite: 'Strict', path: '/account' });
    });
  });

  it('signs in by e-mail with the link from the outbox', async () => {
    await withPage(async (page) => {
      await page.goto(`${base}/account?lang=en`);
      await page.getByLabel('E-mail address').fill(P1.email);
      await page.getByRole('button', { name: 'Send the link' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      const mail = await waitFor('the sign-in e-mail', async () => {
        const m = await latestEmail(api, P1.email);
        return m && m.body.includes('/account/email/') ? m : undefined;
      });
      const link = /https?:\/\/\S+\/account\/email\/[A-Za-z0-9_-]+/.exec(mail.body)![0];
      await page.goto(link);
      await page.waitForURL(`${base}/account`);
      expect(await page.locator('main').innerText()).to.contain(`Order ${orders.card!.id}`);
    });
  });

  it('downloads a file from the account, counted as a download', async () => {
    await withPage(
      async (page) => {
        await openSignedIn(page, 'en');
        const link = page.getByRole('link', { name: /guide\.pdf/ });
        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        expect(download.suggestedFilename()).to.equal('guide.pdf');
        const got = fs.readFileSync((await download.path())!);
        expect(got.equals(bytes)).to.equal(true);
        const [{ n }] = await deps.knex('file_downloads').count<{ n: string }[]>('* as n');
        expect(Number(n)).to.be.greaterThan(0);
      },
      { acceptDownloads: true },
    );
  });

  it('Deactivate frees the seat: /verify then activates a new machine', async () => {
    const license = (await deps.knex('licenses').where({ order_id: orders.app!.id }).first('key')) as {
      key: string;
    };
    const verify = (hwid: string) =>
      api.request('/verify', {
        method: 'POST',
        json: { product_id: app.id, license_key: license.key, hwid },
      });
    expect((await verify('OLD-PC')).status).to.equal(200);
    expect((await verify('NEW-PC')).status).to.not.equal(200);
    await withPage(async (page) => {
      await openSignedIn(page, 'en');
      await page
        .getByRole('button', { name: /Deactivate/ })
        .first()
        .click();
      await page.getByRole('status').filter({ hasText: 'deactivated' }).waitFor();
      expect(await page.getByRole('button', { name: /Deactivate/ }).count()).to.equal(0);
    });
    expect((await verify('NEW-PC')).status).to.equal(200);
  });

  it('cancels a subscription’s renewal and resumes it', async () => {
    const merchant = new MerchantClient(api, await merchantToken(acme));
    await withPage(async (page) => {
      await openSignedIn(page, 'en');
      await page.getByRole('button', { name: /Cancel renewal/ }).click();
      await page.getByRole('button', { name: /Resume/ }).waitFor();
      const cancelled = await merchant.request(`/shawarma/subscriptions/${subscriptionId}`);
      expect((cancelled.body.data as { cancel_at_period_end: boolean }).cancel_at_period_end).to.equal(true);
      await page.getByRole('button', { name: /Resume/ }).click();
      await page.getByRole('button', { name: /Cancel renewal/ }).waitFor();
      const resumed = await merchant.request(`/shawarma/subscriptions/${subscriptionId}`);
      expect((resumed.body.data as { cancel_at_period_end: boolean }).cancel_at_period_end).to.equal(false);
    });
  });

  it('a review from the account is published after moderation and shown with the product, marked verified', async () => {
    await withPage(async (page) => {
      await openSignedIn(page, 'en');
      const order = page.locator(`#order-${orders.app!.id}`);
      await order.locator('summary', { hasText: 'Your review' }).click();
      await order.getByLabel('Rating').selectOption('4');
      await order.getByLabel('Your review (optional)').fill('Runs <b>well</b> on my laptop');
      await order.getByRole('button', { name: 'Save review' }).click();
      await page.getByRole('status').filter({ hasText: 'Thank you' }).waitFor();
    });
    const merchant = await dashboardLogin(deps.knex, deps.appSecret, beta.id, 'owner');
    await withPage(async (page) => {
      await page
        .context()
        .addCookies([
          { name: 'matjar_merchant', value: merchant.cookie.split('=')[1]!, url: `${base}/merchant` },
        ]);
      await page.goto(`${base}/merchant/reviews?lang=en`);
      await page
        .getByRole('button', { name: /Publish/ })
        .first()
        .click();
      await page.waitForURL(/done=published/);
    });
    await deps.knex('store_domains').insert({
      store_id: beta.id,
      domain: 'beta-browser.i41.test',
      verified_at: new Date(),
      txt_value: 'i41',
    });
    const shown = await api.request(`/api/reviews?product_id=${app.id}`, {
      headers: { Host: 'beta-browser.i41.test' },
    });
    const items = (
      shown.body.data as { items: { rating: number; comment: string; verified_purchase: boolean }[] }
    ).items;
    expect(items).to.have.length(1);
    expect(items[0]).to.include({
      rating: 4,
      comment: 'Runs <b>well</b> on my laptop',
      verified_purchase: true,
    });
  });

  it('in Arabic fits a 360 px phone, right to left; screenshots (Arabic phone, English desktop)', async () => {
    await withPage(
      async (page) => {
        await openSignedIn(page, 'ar');
        expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
        const overflow = (await page.evaluate(
          'document.documentElement.scrollWidth - window.innerWidth',
        )) as number;
        expect(overflow).to.be.at.most(0);
        await page.screenshot({ path: '/tmp/account-ar-phone.png' });
      },
      { viewport: { width: 360, height: 780 } },
    );
    await withPage(
      async (page) => {
        await openSignedIn(page, 'en');
        await page.screenshot({ path: '/tmp/account-en-desktop.png' });
      },
      { viewport: { width: 1280, height: 900 } },
    );
  });

  it('has no serious or critical axe-core violation, in English and Arabic, signed out and in', async () => {
    const axe = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const found: string[] = [];
    for (const lang of ['en', 'ar'] as const) {
      await withPage(
        async (page) => {
          const scan = async (what: string) => {
            await page.addScriptTag({ content: axe });
            const violations = (await page.evaluate(
              'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 3) })))',
            )) as { id: string; impact: string; nodes: string[] }[];
            for (const v of violations) {
              if (v.impact === 'serious' || v.impact === 'critical')
                found.push(`${lang} ${what}: ${v.id} ${v.nodes.join(', ')}`);
            }
          };
          await page.goto(`${base}/account?lang=${lang}`);
          await scan('sign-in');
          await openSignedIn(page, lang);
          // Every collapsed part open, so the scan sees the review and certificate forms too.
          for (const summary of await page.locator('details summary').all()) await summary.click();
          await scan('account');
        },
        // The pages allow no inline script; the scanner is let in for the test only.
        { bypassCSP: true },
      );
    }
    expect(found).to.deep.equal([]);
  });

  it('pages are small, carry the dashboard’s CSP and load nothing from elsewhere', async () => {
    await withPage(async (page) => {
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await openSignedIn(page, 'en');
      const res = await page.goto(`${base}/account`);
      const csp = res!.headers()['content-security-policy'] ?? '';
      expect(csp).to.contain("script-src 'self'").and.to.contain("default-src 'none'");
      expect(requests.every((u) => u.startsWith(base))).to.equal(true);
      const zlib = await import('node:zlib');
      const html = await res!.text();
      expect(zlib.gzipSync(html).length).to.be.lessThan(50 * 1024);
    });
  });
});
