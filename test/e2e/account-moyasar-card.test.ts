import fs from 'node:fs';
import http from 'node:http';
import { expect } from 'chai';
import { createApp } from '../../api/app';
import { Subscription, type Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { createBuyerSession } from '../../shared/services/account/sessions';
import { startCardUpdate } from '../../shared/services/account/subscriptions';
import type { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { createStore } from '../helpers/builders';
import { guestCheckout } from '../helpers/checkouts';
import { isolatedDeps } from '../helpers/deps';
import { FakeMoyasar } from '../helpers/fake-moyasar';
import { httpClient, type TestServer } from '../helpers/http';
import { randomIp } from '../helpers/otp';
import {
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  startWorkers,
  waitFor,
} from '../integration/payments/support';
import { subscriptionProduct } from '../integration/subscriptions/support';
import { freePort } from './support';

const SECRET_KEY = 'sk_test_a41';
const PUBLISHABLE_KEY = 'pk_test_a41';
const WEBHOOK_SECRET = 'whsec_a41';

/**
 * "Update the saved card" for a subscription paid through Moyasar (docs/account.md), in headless Chromium
 * against the Moyasar stand-in on loopback: the account's card page posts the card from the browser
 * straight to Moyasar's `/v1/tokens` (publishable key, `save_only`), the card holder passes 3-D Secure at
 * the token's `verification_url`, Moyasar sends them back with the token's id, and the platform reads the
 * token back with the secret key before it replaces the subscription's saved card. The platform never
 * receives the card number; the next renewal charges the new token.
 */
describe('the buyer’s account: a Moyasar card update in a browser', function () {
  this.timeout(180_000);
  const moyasar = new FakeMoyasar([SECRET_KEY], [PUBLISHABLE_KEY]);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;
  let api: TestServer;
  let store: Store;

  before(async () => {
    await moyasar.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({
      PUBLIC_BASE_URL: base,
      TRUST_PROXY: '1',
      MOYASAR_API_URL: moyasar.url,
      COINBASE_API_URL: 'http://127.0.0.1:9',
    });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await startWorkers(deps);
    api = httpClient(base, deps.config.nodeEnv);
    store = await createStore({ name: 'Moyasar Plans A41' });
    await hostedMethod(deps, store, 'card', 'moyasar', {
      secret_key: SECRET_KEY,
      publishable_key: PUBLISHABLE_KEY,
      webhook_secret: WEBHOOK_SECRET,
    });
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await moyasar.close();
  });

  /** Buys the monthly plan by card through Moyasar's invoice, the card saved as a token. */
  async function subscribe(phone: string): Promise<{ sub: Subscription; token: string }> {
    const { monthly } = await subscriptionProduct(store, { name: 'Cloud plan A41' });
    const checkout = await guestCheckout(
      api,
      store,
      { product_id: monthly.product_id, subscription_plan: monthly.id } as never,
      { customer_phone: phone },
    );
    const initiated = await guestInitiate(api, store, checkout.checkoutUrl, 'card');
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    const invoiceId = (await sessionOf(paymentIdOf(redirectUrl), 30_000)).provider_payment_id!;
    const paid = moyasar.pay(invoiceId, { saveCard: true });
    const hook = await api.request('/webhooks/moyasar', {
      method: 'POST',
      body: moyasar.webhook(invoiceId, WEBHOOK_SECRET),
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
    });
    expect(hook.status).to.equal(200);
    const order = await completionOf((await orderOf(checkout.checkoutId, 30_000)).id);
    const sub = await waitFor('the subscription', async () =>
      deps.knex('subscriptions').where({ order_id: order.id }).first(),
    );
    return { sub: sub as Subscription, token: paid.source.token! };
  }

  async function open(page: import('playwright-core').Page, phone: string, lang: 'en' | 'ar') {
    const token = await createBuyerSession(deps.knex, { kind: 'phone', value: `966${phone}` }, 'test');
    await page.context().addCookies([{ name: 'matjar_account', value: token, url: `${base}/account` }]);
    await page.goto(`${base}/account?lang=${lang}`);
  }

  it('saves a new card through Moyasar’s tokenisation: the card goes only to Moyasar, the next renewal charges the new token', async () => {
    const phone = '594600021';
    const { sub, token: oldToken } = await subscribe(phone);
    const sealed = async () =>
      deps.cipher.decrypt(
        (
          (await deps.knex('subscriptions').where('id', sub.id).first('payment_token_encrypted')) as {
            payment_token_encrypted: string;
          }
        ).payment_token_encrypted,
      );
    expect(await sealed()).to.equal(oldToken);
    const orders = Number(
      ((await deps.knex('orders').where('store_id', store.id).count('* as n')) as { n: string }[])[0]!.n,
    );
    const toPlatform: string[] = [];
    await withPage(async (page) => {
      page.on('request', (r) => {
        if (r.url().startsWith(base)) toPlatform.push(`${r.url()} ${r.postData() ?? ''}`);
      });
      await open(page, phone, 'en');
      const [formPage] = await Promise.all([
        page.waitForResponse((r) => r.url().includes('/account/card/moyasar/form/')),
        page.getByRole('button', { name: 'Update the saved card: Cloud plan A41' }).click(),
      ]);
      await page.waitForURL(/\/account\/card\/moyasar\/form\/cu_/);
      // The dashboard's CSP, with Moyasar's API as the one other origin the page may connect to.
      const csp = (await formPage.allHeaders())['content-security-policy'] ?? '';
      expect(csp).to.contain(`connect-src 'self' ${moyasar.url}`).and.to.contain("script-src 'self'");
      expect(csp).to.contain("default-src 'none'");
      await page.getByLabel('Name on the card').fill('Sara A');
      await page.getByLabel('Card number').fill('4111 1111 1111 1111');
      await page.getByLabel('Expiry month (MM)').fill('12');
      await page.getByLabel('Expiry year (YY)').fill('30');
      await page.getByLabel('Security code (CVC)').fill('123');
      await page.getByRole('button', { name: 'Save the card' }).click();
      await page.waitForURL(/\/account\?done=card_updated/);
      await page.getByRole('status').filter({ hasText: 'Your card is saved' }).waitFor();
    });
    expect(moyasar.cardNumbersSeen).to.deep.equal(['4111111111111111']);
    expect(toPlatform.filter((r) => r.includes('4111'))).to.deep.equal([]);
    const newToken = await sealed();
    expect(newToken)
      .to.match(/^token_/)
      .and.not.equal(oldToken);
    expect(moyasar.tokens.get(newToken)!.status).to.equal('active');
    expect(
      Number(
        ((await deps.knex('orders').where('store_id', store.id).count('* as n')) as { n: string }[])[0]!.n,
      ),
    ).to.equal(orders);
    const renewed = await api.request(`/__dev/subscriptions/${sub.id}/renew`, { method: 'POST' });
    expect(renewed.status, renewed.text).to.equal(200);
    expect((renewed.body as { outcome: string }).outcome).to.equal('renewed');
    expect(moyasar.chargesOf(newToken)).to.have.length(1);
    expect(moyasar.chargesOf(oldToken)).to.have.length(0);
  });

  it('a card that fails 3-D Secure saves nothing, in Arabic; the page is another buyer’s 404; a token made for another update is refused', async () => {
    const phone = '594600022';
    const { sub, token: oldToken } = await subscribe(phone);
    moyasar.failNextVerification = true;
    let formUrl = '';
    await withPage(async (page) => {
      await open(page, phone, 'ar');
      await page.getByRole('button', { name: 'تحديث البطاقة المحفوظة: Cloud plan A41' }).click();
      await page.waitForURL(/\/account\/card\/moyasar\/form\/cu_/);
      formUrl = page.url();
      expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
      // Labelled inputs with card autocomplete tokens; no serious or critical axe-core violation.
      expect(await page.locator('#card-number').getAttribute('autocomplete')).to.equal('cc-number');
      const scan = await withPage(
        async (scanPage) => {
          await scanPage.context().addCookies(await page.context().cookies());
          await scanPage.goto(formUrl);
          await scanPage.addScriptTag({
            content: fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'),
          });
          return (await scanPage.evaluate(
            'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id))',
          )) as string[];
        },
        { bypassCSP: true },
      );
      expect(scan).to.deep.equal([]);
      expect(await page.locator('#card-number').getAttribute('name')).to.equal(null);
      await page.getByLabel('الاسم على البطاقة').fill('Sara A');
      await page.getByLabel('رقم البطاقة').fill('4000000000000002');
      await page.getByLabel('شهر الانتهاء (MM)').fill('01');
      await page.getByLabel('سنة الانتهاء (YY)').fill('31');
      await page.getByLabel('رمز الأمان (CVC)').fill('999');
      await page.getByRole('button', { name: 'احفظ البطاقة' }).click();
      await page.waitForURL(/\/account\?done=card_failed/);
    });
    const sealed = (await deps
      .knex('subscriptions')
      .where('id', sub.id)
      .first('payment_token_encrypted')) as {
      payment_token_encrypted: string;
    };
    expect(deps.cipher.decrypt(sealed.payment_token_encrypted)).to.equal(oldToken);
    // Another buyer cannot open this update's card page.
    await withPage(async (page) => {
      await open(page, '594600023', 'en');
      const res = await page.goto(formUrl);
      expect(res!.status()).to.equal(404);
    });
    // A valid, active token made for another card update is not taken for this one.
    const reference = /\/form\/(cu_[^/?]+)/.exec(formUrl)![1]!;
    const fresh = await api.request(`/account/subscriptions/${sub.id}/card`, { method: 'POST' });
    expect(fresh.status).to.equal(403);
    const started = await startCardUpdate(deps, { kind: 'phone', value: `966${phone}` }, sub.id);
    const other = /\/form\/(cu_[^/?]+)/.exec(started.redirectUrl)![1]!;
    expect(other).to.not.equal(reference);
    const made = await fetch(`${moyasar.url}/v1/tokens`, {
      method: 'POST',
      body: new URLSearchParams({
        publishable_api_key: PUBLISHABLE_KEY,
        name: 'X',
        number: '4111111111111111',
        month: '12',
        year: '30',
        cvc: '123',
        callback_url: `${base}/account/card/moyasar/return?ref=${reference}`,
        'metadata[card_update]': reference,
      }),
    });
    const tokenId = ((await made.json()) as { id: string }).id;
    moyasar.tokens.get(tokenId)!.status = 'active';
    const crossed = await api.request(
      `/account/card/moyasar/return?ref=${other}&id=${tokenId}&status=active`,
      {
        redirect: 'manual',
      },
    );
    expect(crossed.status).to.equal(303);
    expect(crossed.headers.get('location')).to.equal('/account?done=card_failed');
    expect(
      deps.cipher.decrypt(
        (
          (await deps.knex('subscriptions').where('id', sub.id).first('payment_token_encrypted')) as {
            payment_token_encrypted: string;
          }
        ).payment_token_encrypted,
      ),
    ).to.equal(oldToken);
  });
});
