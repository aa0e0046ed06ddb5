import http from 'node:http';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApp } from '../../api/app';
import type { Order, Product, Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import { createBuyerSession } from '../../shared/services/account/sessions';
import { acceptNewPrice } from '../../shared/services/account/subscriptions';
import type { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { createProduct, createStore, merchantToken } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { httpClient, type TestServer } from '../helpers/http';
import { buy } from '../integration/account/support';
import { dashboardLogin } from '../integration/dashboard/support';
import { hostedMethod, startWorkers } from '../integration/payments/support';
import {
  MerchantClient,
  subscribeThroughSandbox,
  subscriptionProduct,
  waitFor,
} from '../integration/subscriptions/support';
import { freePort } from './support';

/**
 * The buyer account's follow-ups in headless Chromium (docs/account.md): the store's own order number
 * ("#1") beside the store's name with a link to its page; "This key does not work" claimed in the account,
 * approved on the dashboard's Fraud page, the replacement shown in the account; "Update the saved card"
 * through the sandbox's card page (a token saved, no order, the next renewal charged to it); "Accept the
 * new price" recorded, audited and shown to the merchant.
 */
describe('the buyer’s account follow-ups in a browser', function () {
  this.timeout(180_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;
  let api: TestServer;
  let acme: Store;
  let card: Product;
  const P = { phone: '594600011', email: 'browser@a41.test' };
  let order: Order;

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
    acme = await createStore({ name: 'Acme Keys A41' });
    await hostedMethod(deps, acme, 'card', 'sandbox');
    card = await createProduct(acme, { name: 'Game card', type: 'code', price_minor: 4_000 });
    await deps.knex('product_codes').insert([
      { product_id: card.id, code: 'GC-A41-FIRST' },
      { product_id: card.id, code: 'GC-A41-SPARE' },
    ]);
    order = await buy(deps, api, acme, card, P);
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function openSignedIn(page: Page, phone: string, lang: 'en' | 'ar' = 'en'): Promise<void> {
    const token = await createBuyerSession(deps.knex, { kind: 'phone', value: `966${phone}` }, 'test');
    await page.context().addCookies([{ name: 'matjar_account', value: token, url: `${base}/account` }]);
    await page.goto(`${base}/account?lang=${lang}`);
  }

  it('shows the store’s own order number beside its name, the order id as text, and a link to the store’s page', async () => {
    const { slug } = (await deps.knex('stores').where('id', acme.id).first('slug')) as { slug: string };
    const { number } = (await deps.knex('orders').where('id', order.id).first('number')) as {
      number: number;
    };
    expect(number).to.equal(1);
    await withPage(async (page) => {
      await openSignedIn(page, P.phone);
      const article = page.locator(`#order-${order.id}`);
      expect(await article.locator('h3').innerText()).to.equal(`Order ${order.id}`);
      expect(await article.locator('[data-store-order]').innerText()).to.equal('Acme Keys A41 #1');
      const link = page.getByRole('link', { name: 'Acme Keys A41: store page' });
      expect(await link.getAttribute('href')).to.equal(`${base}/s/${slug}`);
      await link.click();
      await page.waitForURL(`${base}/s/${slug}`);
      expect(await page.locator('body').innerText()).to.contain('Acme Keys A41');
    });
  });

  it('a key that does not work: claimed in the account, approved on the Fraud page, the new key shown in the account', async () => {
    const claimed = (await deps
      .knex('product_codes')
      .where({ product_id: card.id, status: 'sold' })
      .first('id', 'code')) as { id: number; code: string };
    await withPage(async (page) => {
      await openSignedIn(page, P.phone);
      await page.locator('summary', { hasText: 'This key does not work' }).click();
      await page.getByLabel('What happens when you use it? (optional)').fill('Says "already redeemed"');
      await page.getByRole('button', { name: 'Ask the store for a new key' }).click();
      await page.getByRole('status').filter({ hasText: 'the store answers here' }).waitFor();
      const claim = page.locator(`#key-${claimed.id} .claim`);
      expect(await claim.getAttribute('data-claim-status')).to.equal('open');
      expect(await claim.innerText()).to.contain('Waiting for the store');
      // One open claim per key: the form is gone.
      expect(await page.locator('summary', { hasText: 'This key does not work' }).count()).to.equal(0);
    });
    const [row] = (await deps
      .knex('key_claims')
      .where('product_code_id', claimed.id)
      .select('id', 'buyer_note')) as {
      id: number;
      buyer_note: string;
    }[];
    expect(row!.buyer_note).to.equal('Says "already redeemed"');

    const merchant = await dashboardLogin(deps.knex, deps.appSecret, acme.id, 'owner');
    await withPage(async (page) => {
      await page
        .context()
        .addCookies([
          { name: 'matjar_merchant', value: merchant.cookie.split('=')[1]!, url: `${base}/merchant` },
        ]);
      await page.goto(`${base}/merchant/fraud?lang=en`);
      expect(await page.locator(`tr[data-claim="${row!.id}"]`).innerText()).to.contain('already redeemed');
      await page.getByRole('button', { name: `Replace the key #${row!.id}` }).click();
      await page.waitForURL(/claim-approved/);
    });

    await withPage(async (page) => {
      await openSignedIn(page, P.phone);
      const claim = page.locator(`#key-${claimed.id} .claim`);
      expect(await claim.getAttribute('data-claim-status')).to.equal('approved');
      expect(await claim.locator('[data-replacement]').innerText()).to.equal('GC-A41-SPARE');
      expect(await page.locator('[data-bad]').innerText()).to.equal('GC-A41-FIRST');
      const keys = await page.locator(`#order-${order.id} code[data-key]`).allInnerTexts();
      expect(keys).to.include('GC-A41-SPARE');
      // Sent again, the delivery carries the replacement and never the replaced key.
      await page.getByRole('button', { name: `Send again by e-mail: Order ${order.id}` }).click();
      await page.getByRole('status').filter({ hasText: 'On its way again' }).waitFor();
    });
    const resent = await waitFor('the e-mail sent again', async () => {
      const res = await fetch(`${base}/__dev/outbox?to=${encodeURIComponent(P.email)}`);
      const messages = ((await res.json()) as { messages: { body: string }[] }).messages;
      return messages.find((m) => m.body.includes('GC-A41-SPARE'));
    });
    expect(resent.body).to.not.contain('GC-A41-FIRST');
  });

  it('updates a subscription’s saved card through the sandbox’s card page: a new token, no order, the next renewal charged to it', async () => {
    const phone = '594600012';
    const { monthly } = await subscriptionProduct(acme, { name: 'Pro plan A41' });
    const { subscription } = await subscribeThroughSandbox(deps, api, acme, monthly, phone);
    const tokenOf = async () =>
      deps.cipher.decrypt(
        (
          (await deps
            .knex('subscriptions')
            .where('id', subscription.id)
            .first('payment_token_encrypted')) as {
            payment_token_encrypted: string;
          }
        ).payment_token_encrypted,
      );
    const before = await tokenOf();
    const count = async (table: string) =>
      Number(((await deps.knex(table).where('store_id', acme.id).count('* as n')) as { n: string }[])[0]!.n);
    const [orders, payments] = [await count('orders'), await count('payments')];

    await withPage(async (page) => {
      await openSignedIn(page, phone);
      await page.getByRole('button', { name: 'Update the saved card: Pro plan A41' }).click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      expect(await page.locator('h1').innerText()).to.equal('Save a card (sandbox)');
      // The provider's page reads no card here and states no amount.
      expect(await page.locator('input:not([type="hidden"])').count()).to.equal(0);
      await page.getByRole('button', { name: 'Save card' }).click();
      await page.waitForURL(/\/account\?done=card_updated/);
      await page.getByRole('status').filter({ hasText: 'Your card is saved' }).waitFor();
    });

    const after = await tokenOf();
    expect(after)
      .to.match(/^sbx_tok_/)
      .and.not.equal(before);
    // The webhook arrives too (after the redirect): it finds the update done and changes nothing.
    await waitFor('the card webhook processed', async () => {
      const rows = (await deps
        .knex('webhook_events')
        .whereNull('payment_id')
        .whereRaw("payload->>'type' = 'card.saved'")
        .whereNotNull('processed_at')
        .select('id')) as unknown[];
      return rows.length > 0 ? true : undefined;
    });
    expect(await tokenOf()).to.equal(after);
    const updates = await deps.knex('subscription_card_updates').where('subscription_id', subscription.id);
    expect(updates.map((u: { status: string }) => u.status)).to.deep.equal(['saved']);
    expect(await count('orders')).to.equal(orders);
    expect(await count('payments')).to.equal(payments);
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ store_id: acme.id, action: 'subscription.card_updated', resource_id: subscription.id });
    expect(audit).to.have.length(1);

    // The next renewal charges the new card.
    const renewed = await api.request(`/__dev/subscriptions/${subscription.id}/renew`, { method: 'POST' });
    expect(renewed.status, renewed.text).to.equal(200);
    expect((renewed.body as { outcome: string }).outcome).to.equal('renewed');
    const charged = await deps.knex('sandbox_payments').where({ token: after, card_only: false });
    expect(charged).to.have.length(1);
  });

  it('a card page left with Fail saves nothing; the saved card stays', async () => {
    const phone = '594600013';
    const { monthly } = await subscriptionProduct(acme, { name: 'Team plan A41' });
    const { subscription } = await subscribeThroughSandbox(deps, api, acme, monthly, phone);
    const sealed = async () =>
      (
        (await deps.knex('subscriptions').where('id', subscription.id).first('payment_token_encrypted')) as {
          payment_token_encrypted: string;
        }
      ).payment_token_encrypted;
    const before = await sealed();
    await withPage(async (page) => {
      await openSignedIn(page, phone, 'ar');
      await page.getByRole('button', { name: 'تحديث البطاقة المحفوظة: Team plan A41' }).click();
      await page.waitForURL(/\/sandbox\/checkout\//);
      await page.getByRole('button', { name: 'فشل' }).click();
      await page.waitForURL(/\/account\?done=card_failed/);
      await page.getByRole('status').filter({ hasText: 'لم تُحفظ البطاقة' }).waitFor();
    });
    expect(await sealed()).to.equal(before);
    const updates = await deps.knex('subscription_card_updates').where('subscription_id', subscription.id);
    expect(updates.map((u: { status: string }) => u.status)).to.deep.equal(['failed']);
  });

  it('accepts an announced price rise: recorded once, audited, shown to the merchant', async () => {
    const phone = '594600014';
    const p = await subscriptionProduct(acme, { name: 'Price plan A41' });
    const { subscription, order: first } = await subscribeThroughSandbox(deps, api, acme, p.monthly, phone);
    const merchant = new MerchantClient(api, await merchantToken(acme));
    const raised = await merchant.request(`/shawarma/products/${p.product.id}`, {
      method: 'PATCH',
      json: {
        plans: [
          { id: p.monthly.id, name: 'Monthly', price: '15.00', duration: 'monthly', active: true },
          { id: p.yearly.id, name: 'Yearly', price: '100.00', duration: 'yearly', active: true },
        ],
      },
    });
    expect(raised.status, raised.text).to.equal(200);
    const view = async () =>
      (
        (await merchant.request(`/shawarma/subscriptions/${subscription.id}`)).body.data as {
          next_price: { price: string; accepted_at: string | null } | null;
        }
      ).next_price;
    expect(await view()).to.include({ price: '15.00', accepted_at: null });

    await withPage(async (page) => {
      await openSignedIn(page, phone);
      const sub = page.locator(`#subscription-${subscription.id}`);
      await sub.getByRole('button', { name: 'Accept the new price: Price plan A41' }).click();
      await page.getByRole('status').filter({ hasText: 'the new price is accepted' }).waitFor();
      expect(
        await page.locator(`#subscription-${subscription.id} [data-price-accepted]`).innerText(),
      ).to.contain('You accepted the new price on');
      expect(await page.getByRole('button', { name: /Accept the new price/ }).count()).to.equal(0);
    });
    const shown = await view();
    expect(shown!.accepted_at).to.be.a('string');
    const audit = await merchant.request(
      `/shawarma/audit-log?resource_type=subscription&resource_id=${subscription.id}`,
    );
    expect(audit.status, audit.text).to.equal(200);
    const events = (audit.body.data as { data: { action: string; actor: string }[] }).data;
    const accepted = events.filter((a) => a.action === 'subscription.price_accepted');
    expect(accepted).to.have.length(1);
    expect(accepted[0]!.actor).to.equal('buyer (account)');
    // Accepting again changes nothing: the notice keeps its first acceptance, no second audit row.
    const again = await acceptNewPrice(deps, { kind: 'phone', value: `966${phone}` }, subscription.id);
    expect(again).to.deep.equal({ changed: false });
    expect((await view())!.accepted_at).to.equal(shown!.accepted_at);
    // Another buyer's subscription is not found, as one that does not exist.
    let refused: unknown = null;
    await acceptNewPrice(deps, { kind: 'phone', value: `966${P.phone}` }, subscription.id).catch((err) => {
      refused = err;
    });
    expect(refused).to.be.instanceOf(NotFoundError);
    // The merchant sees it on the dashboard's page of the order that started the subscription.
    const owner = await dashboardLogin(deps.knex, deps.appSecret, acme.id, 'owner');
    await withPage(async (page) => {
      await page
        .context()
        .addCookies([
          { name: 'matjar_merchant', value: owner.cookie.split('=')[1]!, url: `${base}/merchant` },
        ]);
      await page.goto(`${base}/merchant/orders/${first.id}?lang=en`);
      const history = await page.locator('[data-audit]').innerText();
      expect(history).to.contain('subscription.price_accepted').and.to.contain('buyer (account)');
      expect(history).to.contain('"to_price_minor":1500');
    });
  });
});
