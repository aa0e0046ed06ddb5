import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import type { Page } from 'playwright-core';
import { createApp } from '../../api/app';
import { recordAudit } from '../../shared/services/audit';
import { Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { createSession, formToken } from '../../shared/services/staff/sessions';
import { sha256 } from '../../shared/crypto';
import { loadFixture } from '../../shared/services/seed';
import { recordMerchantEvent } from '../../shared/events/merchant-webhooks';
import { createFivemServer, revokeFivemServers } from '../../shared/services/fivem/servers';
import { withPage } from '../helpers/browser';
import { isolatedDeps } from '../helpers/deps';
import { httpClient, startServer, TestServer } from '../helpers/http';
import { guestCheckout } from '../helpers/checkouts';
import { deliverQueuedOtps } from '../helpers/otp';
import { guestInitiate } from '../integration/payments/support';
import { freePort } from './support';

/**
 * The merchant dashboard in headless Chromium, driven the way the operator contract (docs/operations.md)
 * describes its users: open /merchant, sign in with the fixture owner's phone and the code from the dev
 * outbox, sign up at /merchant/signup, fill the product form by its labels, read order ids as text.
 */
describe('merchant dashboard in a browser', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: http.Server;
  let base: string;
  let api: TestServer;
  let storeId: number;
  let embedKey: string;
  let gameCardId: number;
  const OWNER_PHONE = '500000777';

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    api = httpClient(base, deps.config.nodeEnv);
    const manifest = await loadFixture(deps, {
      stores: [
        {
          ref: `dash${port}`,
          name: 'Acme Digital',
          currency: 'SAR',
          // The Merchant API (tokens made in the dashboard) is for paid plans.
          plan: 'paid',
          owner: { name: 'Huda Owner', country_code: '966', phone: OWNER_PHONE },
          payment_methods: {
            card: { provider: 'sandbox' },
            bank: {
              bank_name: 'Acme Bank',
              account_name: 'Acme LLC',
              account_number: '0001',
              iban: 'SA0000000000000000000001',
            },
          },
          products: [
            {
              ref: 'card',
              name: 'Game card',
              slug: 'game-card',
              type: 'code',
              price: '40.00',
              codes: ['GC-0001', 'GC-0002'],
            },
            {
              ref: 'app',
              name: 'Desktop app',
              slug: 'desktop-app',
              type: 'product',
              price: '99.00',
              plans: [{ ref: 'year', name: 'Yearly', price: '99.00', duration: 'yearly' }],
              license: { prefix: 'ACME', lock_type: 'hwid', max_activations: 2, encrypt: false },
            },
          ],
          customers: [
            {
              ref: 'sara',
              firstName: 'Sara',
              lastName: 'Ali',
              email: 'sara@example.com',
              country_code: '966',
              phone: '500000001',
            },
          ],
          reviews: [
            { product: 'app', customer: 'sara', rating: 4, comment: 'Works offline too', published: false },
          ],
          licenses: [
            {
              ref: 'lic1',
              product: 'app',
              plan: 'year',
              customer: 'sara',
              key: 'ACME-AAAA-BBBB-CCCC-DDDD',
              status: 'active',
              expires_at: '2030-01-01T00:00:00Z',
            },
          ],
        },
      ],
    });
    const store = manifest.stores[`dash${port}`];
    storeId = store.id;
    gameCardId = store.products.card.id;
    embedKey = store.embed_key;
  });

  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /**
   * The newest code sent to this number, read from GET /__dev/outbox as an outside tool would: a dashboard
   * code is the message's only run of 4 to 8 digits.
   */
  async function codeFromOutbox(e164: string): Promise<string> {
    await deliverQueuedOtps(deps);
    const res = await fetch(`${base}/__dev/outbox?to=${e164}`);
    const body = (await res.json()) as { messages: { body: string }[] };
    const match = body.messages[0]?.body.match(/(?<!\d)\d{4,8}(?!\d)/g);
    expect(match, `a code for ${e164}`).to.have.length(1);
    return match![0];
  }

  /** Opens `start` (a dashboard page) signed out, signs in, and lands back on it. */
  async function signIn(
    page: Page,
    phone: string,
    opts: { wrongFirst?: boolean; start?: string } = {},
  ): Promise<void> {
    const start = opts.start ?? '/merchant';
    await page.goto(`${base}${start}?lang=en`);
    await page.locator('input[autocomplete="tel-national"]').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.waitForURL(/\/merchant\/code/);
    const code = await codeFromOutbox(`966${phone}`);
    const input = page.locator('input[autocomplete="one-time-code"]');
    if (opts.wrongFirst) {
      await input.fill(String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0'));
      await page.getByRole('button', { name: 'Continue' }).click();
      expect(await page.getByRole('alert').innerText()).to.contain('2 tries left');
    }
    await page.locator('input[autocomplete="one-time-code"]').fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${base}${start}`);
  }

  /**
   * Opens `start` signed in as the fixture owner through a session made directly (the sign-in form itself
   * is driven by the tests above; doing it for every page would run into the per-phone code limits).
   */
  async function openAsOwner(page: Page, start = '/merchant'): Promise<void> {
    const user = await deps
      .knex('merchant_users')
      .where({ e164: `966${OWNER_PHONE}` })
      .first('id');
    const token = await createSession(deps.knex, user.id, storeId, 'test');
    await page.context().addCookies([{ name: 'matjar_merchant', value: token, url: `${base}/merchant` }]);
    await page.goto(`${base}${start}`);
  }

  it('signs up: store name and phone, the code from the outbox, lands in the new free store', async () => {
    const phone = '500000888';
    const { text, cookie } = await withPage(
      async (page) => {
        await page.goto(`${base}/merchant/signup`);
        await page.getByLabel('Store name').fill('Noor Games');
        await page.getByLabel('Your name').fill('Noor');
        await page.locator('input[autocomplete="tel-national"]').fill(phone);
        await page.getByRole('button', { name: 'Send code' }).click();
        await page.waitForURL(/\/merchant\/code/);
        await page.locator('input[autocomplete="one-time-code"]').fill(await codeFromOutbox(`966${phone}`));
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForURL(`${base}/merchant`);
        const cookies = await page.context().cookies();
        return {
          text: await page.locator('body').innerText(),
          cookie: cookies.find((c) => c.name === 'matjar_merchant'),
        };
      },
      { locale: 'en-US' },
    );
    expect(text).to.contain('Noor Games').and.to.contain('Free plan').and.to.contain('Sales, last 30 days');
    expect(cookie?.httpOnly).to.equal(true);
    expect(cookie?.sameSite).to.equal('Strict');
    const store = await deps.knex('stores').where({ name: 'Noor Games' }).first();
    expect(store.plan).to.equal('free');
    const owner = await deps
      .knex('store_members as m')
      .join('merchant_users as u', 'u.id', 'm.merchant_user_id')
      .where('m.store_id', store.id)
      .first('u.e164', 'u.name', 'm.role');
    expect(owner).to.deep.equal({ e164: `966${phone}`, name: 'Noor', role: 'owner' });
    // Only the token's hash is kept.
    expect(
      await deps
        .knex('dashboard_sessions')
        .where({ token_hash: sha256(cookie!.value) })
        .first(),
    ).to.not.equal(undefined);
    expect(await deps.knex('dashboard_sessions').where({ token_hash: cookie!.value }).first()).to.equal(
      undefined,
    );
  });

  it('signs in the fixture owner after a wrong code, creates a product through the form and sells it on the Embed API', async () => {
    const productId = await withPage(async (page) => {
      await signIn(page, OWNER_PHONE, { wrongFirst: true });
      expect(await page.locator('body').innerText()).to.contain('Acme Digital');
      await page.getByRole('link', { name: 'Products' }).click();
      await page.getByRole('link', { name: 'New product' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Gift card 100');
      await page.getByLabel('Price', { exact: true }).fill('100.00');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      expect(await page.getByRole('status').innerText()).to.equal('Saved.');
      return Number(/products\/(\d+)/.exec(page.url())![1]);
    });
    const res = await fetch(`${base}/api/embed/product/${productId}`, {
      headers: { 'X-Embed-Key': embedKey },
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { data: { name: string; price: unknown } };
    expect(body.data.name).to.equal('Gift card 100');
    expect(JSON.stringify(body.data.price)).to.contain('100');
    // Written by the Merchant API's product service: its audit row names the person.
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ resource_type: 'product', resource_id: productId })
      .first('action', 'actor');
    expect(audit).to.deep.equal({ action: 'product.created', actor: `dashboard:+966${OWNER_PHONE}` });
  });

  it('lists the store’s orders with each id and store number as text, and the order page offers the allowed moves', async () => {
    const ids: number[] = [];
    const numbers: number[] = [];
    for (const status of [2, 4]) {
      const [row] = await deps
        .knex('orders')
        .insert({
          store_id: storeId,
          status,
          customer_first_name: 'Sara',
          customer_last_name: 'Ali',
          customer_email: 'sara@example.com',
          customer_country_code: '966',
          customer_phone: '500000001',
          subtotal_minor: 5_000,
          total_minor: 5_000,
          currency: 'SAR',
        })
        .returning(['id', 'number']);
      ids.push((row as { id: number }).id);
      numbers.push((row as { number: number }).number);
    }
    // The database numbers each store's orders one after the other.
    expect(numbers[1]).to.equal(numbers[0]! + 1);
    await withPage(async (page) => {
      // Asked for the orders while signed out: back there once signed in.
      await signIn(page, OWNER_PHONE, { start: '/merchant/orders' });
      const text = await page.locator('main').innerText();
      for (const id of ids) expect(text).to.contain(`ID ${id}`);
      for (const n of numbers) expect(text).to.contain(`#${n}`);
      await page.getByText(`#${numbers[0]}`, { exact: true }).click();
      expect(await page.locator('h1').innerText()).to.contain(`#${numbers[0]}`);
      expect(await page.locator(`[data-order-id="${ids[0]}"]`).innerText()).to.equal(String(ids[0]));
      await page.getByRole('button', { name: 'Confirm payment, start' }).waitFor();
      await page.getByRole('button', { name: 'Refund order' }).click();
      // A refund asks first.
      await page.getByRole('button', { name: 'Yes, do it' }).click();
      expect(await page.getByRole('status').innerText()).to.equal('The order is now: Refunded.');
    });
    expect((await deps.knex('orders').where({ id: ids[0] }).first()).status).to.equal(6);
  });

  it('shows an order bought through the Embed API by bank transfer, and confirming the transfer starts it', async () => {
    const store = await Store.query(deps.knex).findById(storeId);
    const checkout = await guestCheckout(
      api,
      store!,
      { product_id: gameCardId },
      { customer_phone: '500000555' },
    );
    const initiated = await guestInitiate(api, store!, checkout.checkoutUrl, 'bank');
    expect(initiated.status, initiated.text).to.equal(200);
    const order = await deps
      .knex('orders')
      .where({ checkout_id: checkout.checkoutId })
      .first('id', 'number', 'status');
    expect(order.status).to.equal(2);
    const notice = await withPage(async (page) => {
      await openAsOwner(page);
      expect(await page.locator('.alert').innerText()).to.contain('waiting for you to confirm a payment');
      await page.getByRole('link', { name: 'Orders' }).click();
      const row = page.locator('tr', { has: page.getByText(`#${order.number}`, { exact: true }) });
      // Intl writes a no-break space between the currency and the amount.
      expect((await row.innerText()).replace(/\u00a0/g, ' '))
        .to.contain('Under review')
        .and.to.contain('SAR 40.00');
      await page.getByText(`#${order.number}`, { exact: true }).click();
      expect(await page.locator('main').innerText())
        .to.contain('Game card')
        .and.to.contain('Bank transfer');
      await page.getByRole('button', { name: 'Confirm payment, start' }).click();
      return page.getByRole('status').innerText();
    });
    expect(notice).to.equal('The order is now: In progress.');
    const after = await deps.knex('orders').where({ id: order.id }).first('status', 'payment_id');
    expect(after.status).to.equal(3);
    expect((await deps.knex('payments').where({ id: after.payment_id }).first('status')).status).to.equal(
      'paid',
    );
  });

  it('refunds part of a paid order, then the rest after a confirmation each time', async () => {
    const store = await Store.query(deps.knex).findById(storeId);
    const checkout = await guestCheckout(
      api,
      store!,
      { product_id: gameCardId },
      { customer_phone: '500000556' },
    );
    expect((await guestInitiate(api, store!, checkout.checkoutUrl, 'bank')).status).to.equal(200);
    const order = await deps.knex('orders').where({ checkout_id: checkout.checkoutId }).first('id');
    const texts = await withPage(async (page) => {
      await openAsOwner(page, `/merchant/orders/${order.id}`);
      await page.getByRole('button', { name: 'Confirm payment, start' }).click();
      await page.getByRole('status').waitFor();
      const amount = page.getByLabel('Amount to refund (SAR)');
      // Everything that is left is offered; more than that is refused, naming the limit.
      expect(await amount.inputValue()).to.equal('40.00');
      await amount.fill('40.01');
      await page.getByRole('button', { name: 'Refund…' }).click();
      const refused = (await page.locator('#refund-amount-error').innerText()).replace(/\u00a0/g, ' ');
      await page.getByLabel('Amount to refund (SAR)').fill('12.50');
      await page.getByLabel('Reason (optional)').fill('One code did not work');
      await page.getByRole('button', { name: 'Refund…' }).click();
      const partialAsk = (await page.locator('main').innerText()).replace(/\u00a0/g, ' ');
      await page.getByRole('button', { name: 'Yes, do it' }).click();
      const partialDone = (await page.getByRole('status').innerText()).replace(/\u00a0/g, ' ');
      const statusAfterPartial = await page.locator('h1 .badge').innerText();
      expect(await page.getByLabel('Amount to refund (SAR)').inputValue()).to.equal('27.50');
      await page.getByRole('button', { name: 'Refund…' }).click();
      const fullAsk = (await page.locator('main').innerText()).replace(/\u00a0/g, ' ');
      await page.getByRole('button', { name: 'Yes, do it' }).click();
      const fullDone = (await page.getByRole('status').innerText()).replace(/\u00a0/g, ' ');
      const refundsTable = await page.locator('section', { hasText: 'Refunds' }).last().innerText();
      const invoiceLink = await page.getByRole('link', { name: /Receipt|Tax invoice/ }).getAttribute('href');
      return {
        refused,
        partialAsk,
        partialDone,
        statusAfterPartial,
        fullAsk,
        fullDone,
        refundsTable,
        invoiceLink,
      };
    });
    expect(texts.refused).to.contain('at most SAR 40.00');
    expect(texts.partialAsk).to.contain('Refund SAR 12.50 of order #').and.to.contain('keeps its status');
    expect(texts.partialDone).to.equal('Refund of SAR 12.50 recorded.');
    expect(texts.statusAfterPartial).to.equal('In progress');
    expect(texts.fullAsk).to.contain('Refund SAR 27.50, all that is left of the payment');
    expect(texts.fullDone).to.equal('Refund of SAR 27.50 recorded.');
    expect(texts.refundsTable).to.contain('One code did not work');
    expect(texts.invoiceLink).to.match(new RegExp(`/invoices/${order.id}-[0-9a-f]{32}$`));
    const refunds = await deps
      .knex('refunds')
      .where({ order_id: order.id })
      .orderBy('id')
      .select('amount_minor', 'status');
    expect(refunds.map((r) => [Number(r.amount_minor), r.status])).to.deep.equal([
      [1250, 'succeeded'],
      [2750, 'succeeded'],
    ]);
    expect((await deps.knex('orders').where({ id: order.id }).first('status')).status).to.equal(6);
  });

  it('speaks Arabic right to left (?lang=ar and Accept-Language), and English by choice', async () => {
    const dirs = await withPage(
      async (page) => {
        await page.goto(`${base}/merchant/signin`);
        const fromBrowser = await page.locator('html').getAttribute('dir');
        const label = await page.locator('label[for="phone"]').innerText();
        await page.goto(`${base}/merchant/signin?lang=en`);
        const chosen = await page.locator('html').getAttribute('dir');
        return { fromBrowser, label, chosen };
      },
      { locale: 'ar-SA' },
    );
    expect(dirs).to.deep.equal({ fromBrowser: 'rtl', label: 'رقم الجوال', chosen: 'ltr' });
    const ar = await withPage(async (page) => {
      await page.goto(`${base}/merchant/signup?lang=ar`);
      return page.locator('html').getAttribute('dir');
    });
    expect(ar).to.equal('rtl');
  });

  describe('sessions and roles', () => {
    async function sessionFor(phone: string, role: 'owner' | 'manager' | 'support') {
      const [user] = await deps
        .knex('merchant_users')
        .insert({ name: role, country_code: '966', phone, e164: `966${phone}` })
        .onConflict('e164')
        .merge()
        .returning('id');
      const userId = (user as { id: number }).id;
      await deps
        .knex('store_members')
        .insert({ store_id: storeId, merchant_user_id: userId, role })
        .onConflict(['store_id', 'merchant_user_id'])
        .merge();
      const token = await createSession(deps.knex, userId, storeId, 'test');
      return {
        cookie: `matjar_merchant=${token}`,
        form: formToken(deps.appSecret, { token_hash: sha256(token) }),
      };
    }

    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

    it('refuses a POST without the form token, or from another site, and takes it with the token', async () => {
      const { cookie, form: token } = await sessionFor('500000701', 'owner');
      const product = { name: 'Token test', type: 'product', price: '5', active: '1' };
      const without = await api.request('/merchant/products', {
        ...form(product),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      });
      expect(without.status).to.equal(403);
      const wrong = await api.request('/merchant/products', {
        ...form({ ...product, _csrf: 'x'.repeat(64) }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      });
      expect(wrong.status).to.equal(403);
      const crossSite = await api.request('/merchant/products', {
        ...form({ ...product, _csrf: token }),
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Cookie: cookie,
          Origin: 'https://evil.example',
        },
      });
      expect(crossSite.status).to.equal(403);
      expect(await deps.knex('products').where({ store_id: storeId, name: 'Token test' }).first()).to.equal(
        undefined,
      );
      const right = await api.request('/merchant/products', {
        ...form({ ...product, _csrf: token }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        redirect: 'manual',
      });
      expect(right.status).to.equal(303);
      expect(
        await deps.knex('products').where({ store_id: storeId, name: 'Token test' }).first(),
      ).to.not.equal(undefined);
    });

    it('refunds exactly in a 3-decimal currency: 1.250 of 5.500 KWD, and refuses a fourth decimal', async () => {
      const manifest = await loadFixture(deps, {
        stores: [
          {
            ref: 'kwd-shop',
            name: 'Kuwait Keys',
            currency: 'KWD',
            owner: { name: 'Fahad', country_code: '965', phone: '50000123' },
            payment_methods: {
              bank: {
                bank_name: 'KW Bank',
                account_name: 'KK',
                account_number: '1',
                iban: 'KW00000000000001',
              },
            },
            products: [
              { ref: 'k', name: 'Key', slug: 'key', type: 'code', price: '5.500', codes: ['KW-1', 'KW-2'] },
            ],
          },
        ],
      });
      const kwd = manifest.stores['kwd-shop'];
      const store = await Store.query(deps.knex).findById(kwd.id);
      const checkout = await guestCheckout(api, store!, { product_id: kwd.products.k.id }, {});
      expect((await guestInitiate(api, store!, checkout.checkoutUrl, 'bank')).status).to.equal(200);
      const order = await deps.knex('orders').where({ checkout_id: checkout.checkoutId }).first('id');
      const user = await deps.knex('merchant_users').where({ e164: '96550000123' }).first('id');
      const token = await createSession(deps.knex, user.id, kwd.id, 'test');
      const cookie = `matjar_merchant=${token}`;
      const csrf = formToken(deps.appSecret, { token_hash: sha256(token) });
      const post = (path: string, fields: Record<string, string>) =>
        api.request(path, {
          ...form({ ...fields, _csrf: csrf }),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        });
      expect((await post(`/merchant/orders/${order.id}/status`, { status: '3' })).status).to.equal(200);
      const page = await api.request(`/merchant/orders/${order.id}?lang=en`, { headers: { Cookie: cookie } });
      expect(page.text).to.contain('value="5.500"');
      const tooPrecise = await post(`/merchant/orders/${order.id}/refund`, {
        amount: '1.2505',
        confirm: '1',
      });
      expect(tooPrecise.status).to.equal(422);
      const ask = await post(`/merchant/orders/${order.id}/refund`, { amount: '1.250' });
      expect(ask.status).to.equal(200);
      expect(ask.text.replace(/\u00a0/g, ' ')).to.contain('Refund KWD 1.250 of order #');
      const done = await post(`/merchant/orders/${order.id}/refund`, { amount: '1.250', confirm: '1' });
      expect(done.status).to.equal(200);
      expect(done.text.replace(/\u00a0/g, ' ')).to.contain('Refund of KWD 1.250 recorded.');
      expect(done.text).to.contain('value="4.250"');
      const refunds = await deps
        .knex('refunds')
        .where({ order_id: order.id })
        .select('amount_minor', 'currency');
      expect(refunds.map((r) => [Number(r.amount_minor), r.currency])).to.deep.equal([[1250, 'KWD']]);
      expect((await deps.knex('orders').where({ id: order.id }).first('status')).status).to.equal(3);
    });

    it('support sees orders but not settings, and cannot refund', async () => {
      const { cookie, form: token } = await sessionFor('500000702', 'support');
      const orders = await api.request('/merchant/orders', { headers: { Cookie: cookie } });
      expect(orders.status).to.equal(200);
      const settings = await api.request('/merchant/settings', { headers: { Cookie: cookie } });
      expect(settings.status).to.equal(403);
      expect(settings.text).to.contain('Your role in this store does not allow this.');
      const [row] = await deps
        .knex('orders')
        .insert({
          store_id: storeId,
          status: 4,
          customer_first_name: 'A',
          customer_last_name: 'B',
          customer_email: 'a@example.com',
          customer_country_code: '966',
          customer_phone: '500000002',
          subtotal_minor: 100,
          total_minor: 100,
          currency: 'SAR',
        })
        .returning('id');
      const id = (row as { id: number }).id;
      const refund = await api.request(`/merchant/orders/${id}/status`, {
        ...form({ status: '6', confirm: '1', _csrf: token }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      });
      expect(refund.status).to.equal(403);
      expect((await deps.knex('orders').where({ id }).first()).status).to.equal(4);
      // The order page says what the game server did with the order's commands.
      await deps.knex('fivem_commands').insert([
        {
          store_id: storeId,
          order_id: id,
          command: 'give 7 vip',
          status: 'executed',
          executed_at: new Date(),
        },
        { store_id: storeId, order_id: id, command: 'give 7 car', status: 'pending' },
      ]);
      const detail = await api.request(`/merchant/orders/${id}`, { headers: { Cookie: cookie } });
      expect(detail.status).to.equal(200);
      expect(detail.text).to.contain('give 7 vip</code> · Ran on the game server');
      expect(detail.text).to.contain('give 7 car</code> · Waiting for the game server');
      const byAmount = await api.request(`/merchant/orders/${id}/refund`, {
        ...form({ amount: '1.00', confirm: '1', _csrf: token }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
      });
      expect(byAmount.status).to.equal(403);
      expect(await deps.knex('refunds').where({ order_id: id })).to.have.length(0);
      // Support is offered the moves it may make, and not the refund.
      expect(detail.text).to.not.contain('Refund order');
    });

    it('filters orders by product and by day', async () => {
      const { cookie } = await sessionFor('500000704', 'support');
      const sold = await deps
        .knex('orders as o')
        .join('order_items as i', 'i.order_id', 'o.id')
        .where({ 'o.store_id': storeId, 'i.product_id': gameCardId })
        .pluck('o.id');
      const all = await deps.knex('orders').where({ store_id: storeId }).pluck('id');
      expect(sold.length).to.be.greaterThan(0);
      expect(all.length).to.be.greaterThan(sold.length);
      const byProduct = await api.request(`/merchant/orders?product=${gameCardId}`, {
        headers: { Cookie: cookie },
      });
      const shown = [...byProduct.text.matchAll(/data-order-id="(\d+)"/g)].map((m) => Number(m[1]));
      expect(shown.sort()).to.deep.equal([...sold].sort());
      const longAgo = await api.request('/merchant/orders?from=2001-01-01&to=2001-01-31', {
        headers: { Cookie: cookie },
      });
      expect(longAgo.text).to.not.contain('data-order-id=');
      expect(longAgo.text).to.contain('No orders yet.');
      const today = new Date().toISOString().slice(0, 10);
      const now = await api.request(`/merchant/orders?from=${today}&to=${today}`, {
        headers: { Cookie: cookie },
      });
      expect([...now.text.matchAll(/data-order-id="(\d+)"/g)]).to.have.length(Math.min(all.length, 20));
    });

    it('an owner renames the store, sets allowed origins and invites support, who can then get a code', async () => {
      const { cookie, form: token } = await sessionFor('500000705', 'owner');
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie };
      const bad = await api.request('/merchant/settings', {
        ...form({ _csrf: token, name: 'Acme Digital', allowed_origins: 'shop.acme.test/path' }),
        headers,
      });
      expect(bad.status).to.equal(422);
      expect(bad.text).to.contain('Each line must be an origin');
      const saved = await api.request('/merchant/settings', {
        ...form({
          _csrf: token,
          name: 'Acme Digital',
          allowed_origins: 'https://shop.acme.test\nhttps://acme.test',
          domains: 'Shop.Acme.test',
        }),
        headers,
        redirect: 'manual',
      });
      expect(saved.status).to.equal(303);
      expect(await deps.knex('store_domains').where({ store_id: storeId }).pluck('domain')).to.deep.equal([
        'shop.acme.test',
      ]);
      const badDomain = await api.request('/merchant/settings', {
        ...form({ _csrf: token, name: 'Acme Digital', allowed_origins: '', domains: 'not a host/' }),
        headers,
      });
      expect(badDomain.status).to.equal(422);
      expect(badDomain.text).to.contain('Each line must be a host name');
      expect(
        await deps
          .knex('merchant_audit_events')
          .where({ store_id: storeId, action: 'store.updated' })
          .first('actor'),
      ).to.deep.equal({ actor: 'dashboard:+966500000705' });
      expect((await deps.knex('stores').where({ id: storeId }).first()).allowed_origins).to.deep.equal([
        'https://shop.acme.test',
        'https://acme.test',
      ]);
      const page = await api.request('/merchant/settings', { headers: { Cookie: cookie } });
      expect(page.text).to.contain(embedKey);
      const invited = await api.request('/merchant/staff', {
        ...form({ _csrf: token, name: 'Sami', country_code: '966', phone: '500000706', role: 'support' }),
        headers,
      });
      expect(invited.status).to.equal(200);
      expect(invited.text).to.contain('Invited.');
      const again = await api.request('/merchant/staff', {
        ...form({ _csrf: token, name: 'Sami', country_code: '966', phone: '500000706', role: 'support' }),
        headers,
      });
      expect(again.status).to.equal(409);
      const code = await api.request('/merchant/signin', {
        ...form({ country_code: '966', phone: '500000706' }),
        redirect: 'manual',
      });
      expect(code.status).to.equal(303);
      expect(code.headers.get('location')).to.equal('/merchant/code');
      // A number of no store is answered the same way (the form does not tell who is a merchant).
      const stranger = await api.request('/merchant/signin', {
        ...form({ country_code: '966', phone: '500000707' }),
        redirect: 'manual',
      });
      expect(stranger.status).to.equal(303);
      expect(stranger.headers.get('location')).to.equal('/merchant/code');
    });

    it('signs out everywhere: every session of the person stops working', async () => {
      const first = await sessionFor('500000703', 'manager');
      const second = await sessionFor('500000703', 'manager');
      const out = await api.request('/merchant/signout', {
        ...form({ _csrf: first.form, everywhere: '1' }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: first.cookie },
        redirect: 'manual',
      });
      expect(out.status).to.equal(303);
      for (const s of [first, second]) {
        const home = await api.request('/merchant', { headers: { Cookie: s.cookie }, redirect: 'manual' });
        expect(home.status).to.equal(302);
        expect(home.headers.get('location')).to.equal('/merchant/signin');
      }
    });
  });

  it('rotates the embed key after a confirmation: the old key is refused at once, the new one sells', async () => {
    const oldKey = embedKey;
    const shown = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/settings');
      expect(await page.getByLabel('Buy button for your site').inputValue()).to.contain(oldKey);
      await page.getByRole('button', { name: 'Rotate embed key…' }).click();
      expect(await page.locator('main').innerText()).to.contain('stops working at once');
      await page.getByRole('button', { name: 'Yes, do it' }).click();
      await page.waitForURL(/\/merchant\/settings\?rotated=1/);
      expect(await page.getByRole('status').innerText()).to.contain('new embed key');
      return {
        key: await page.locator('[data-embed-key]').innerText(),
        snippet: await page.getByLabel('Buy button for your site').inputValue(),
      };
    });
    expect(shown.key)
      .to.match(/^emb_pk_/)
      .and.not.equal(oldKey);
    expect(shown.snippet).to.contain(`data-matjar-key="${shown.key}"`);
    const get = (key: string) =>
      fetch(`${base}/api/embed/product/${gameCardId}`, { headers: { 'X-Embed-Key': key } });
    expect((await get(oldKey)).status).to.equal(401);
    expect((await get(shown.key)).status).to.equal(200);
    embedKey = shown.key;
  });

  it('suspends, reactivates and resets a license, and publishes a waiting review', async () => {
    const license = await deps.knex('licenses').where({ key: 'ACME-AAAA-BBBB-CCCC-DDDD' }).first('id');
    await deps.knex('license_activations').insert([
      { license_id: license.id, identifier: 'a'.repeat(64), hint: 'PC-01' },
      { license_id: license.id, identifier: 'b'.repeat(64), hint: 'PC-02' },
    ]);
    await deps.knex('licenses').where({ id: license.id }).update({ activations_count: 2 });
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/licenses?lang=en&key=DDDD');
      await page.getByRole('link', { name: '…C-DDDD' }).click();
      const before = await page.locator('main').innerText();
      await page.getByRole('button', { name: 'Suspend' }).click();
      const suspended = await page.getByRole('status').innerText();
      const statusInDb = (await deps.knex('licenses').where({ id: license.id }).first('status')).status;
      await page.getByRole('button', { name: 'Reactivate' }).click();
      const reactivated = await page.getByRole('status').innerText();
      await page.getByRole('button', { name: 'Remove this activation' }).first().click();
      const one = await page.getByRole('status').innerText();
      await page.getByRole('button', { name: 'Reset all activations' }).click();
      const all = await page.getByRole('status').innerText();
      await page.goto(`${base}/merchant/reviews?lang=en`);
      const waiting = await page.locator('main').innerText();
      await page.getByRole('button', { name: /^Publish #/ }).click();
      const published = await page.getByRole('status').innerText();
      return { before, suspended, statusInDb, reactivated, one, all, waiting, published };
    });
    expect(seen.before).to.contain('Desktop app').and.to.contain('2 / 2').and.to.contain('…PC-01');
    expect(seen.suspended).to.equal('The license is now: Suspended.');
    expect(seen.statusInDb).to.equal('suspended');
    expect(seen.reactivated).to.equal('The license is now: Active.');
    expect(seen.one).to.equal('1 activation(s) removed; the slots are free again.');
    expect(seen.all).to.equal('1 activation(s) removed; the slots are free again.');
    const after = await deps.knex('licenses').where({ id: license.id }).first('status', 'activations_count');
    expect(after).to.deep.equal({ status: 'active', activations_count: 0 });
    expect(seen.waiting).to.contain('Works offline too').and.to.contain('Waiting');
    expect(seen.published).to.equal('The review is published.');
    const review = await deps.knex('reviews').where({ comment: 'Works offline too' }).first('published');
    expect(review.published).to.equal(true);
  });

  it('creates a read-only API token shown once, which reads the Merchant API until it is revoked', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/tokens?lang=en');
      await page.getByLabel('Token name').fill('Accounting export');
      await page.getByLabel('Read only').check();
      await page.getByRole('button', { name: 'Create token' }).click();
      const token = await page.getByLabel('Your new token: copy it now, it is shown only once').inputValue();
      await page.goto(`${base}/merchant/tokens?lang=en`);
      const later = await page.locator('main').innerText();
      const read = await fetch(`${base}/shawarma/store`, { headers: { Authorization: `Bearer ${token}` } });
      const write = await fetch(`${base}/shawarma/store`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Hijacked' }),
      });
      await page.getByRole('button', { name: 'Revoke Accounting export' }).click();
      await page.getByRole('button', { name: 'Yes, do it' }).click();
      const notice = await page.getByRole('status').innerText();
      const after = await fetch(`${base}/shawarma/store`, { headers: { Authorization: `Bearer ${token}` } });
      return { token, later, read: read.status, write: write.status, notice, after: after.status };
    });
    expect(seen.token).to.match(/^mt_/);
    expect(seen.later).to.contain('Accounting export').and.not.contain(seen.token);
    expect(seen.read).to.equal(200);
    expect(seen.write).to.equal(403);
    expect(seen.notice).to.equal('The token is revoked.');
    expect(seen.after).to.equal(401);
  });

  it('shows the conversion of the last 30 days from the store’s own analytics on the home page', async () => {
    for (let i = 0; i < 40; i += 1) {
      await deps.knex.raw(
        `insert into analytics_events (store_id, type, visitor_id, path, occurred_at) values (?, 'pageview', ?, '/', now())`,
        [storeId, `visitor-${i}`],
      );
    }
    const [{ n }] = await deps
      .knex('orders')
      .where({ store_id: storeId })
      .whereIn('status', [3, 4])
      .count<{ n: string }[]>('* as n');
    const shown = await withPage(async (page) => {
      await openAsOwner(page, '/merchant?lang=en');
      return page.locator('[data-conversion]').innerText();
    });
    expect(Number(n)).to.be.greaterThan(0);
    expect(shown).to.equal(
      new Intl.NumberFormat('en-GB', { style: 'percent', maximumFractionDigits: 1 }).format(Number(n) / 40),
    );
  });

  it('creates, edits and disables a coupon with the Merchant API’s rules', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/coupons?lang=en');
      await page.getByRole('link', { name: 'New coupon' }).click();
      await page.getByLabel('Code', { exact: true }).fill('EID15');
      await page.getByLabel('Discount type').selectOption('percentage');
      await page.getByLabel('Discount', { exact: true }).fill('150');
      await page.getByRole('button', { name: 'Save' }).click();
      const refused = await page.locator('#amount-error').innerText();
      await page.getByLabel('Discount', { exact: true }).fill('15');
      await page.getByLabel('Maximum uses').fill('10');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/coupons\?saved=1/);
      await page.getByRole('link', { name: 'Edit EID15' }).click();
      await page.getByLabel('Discount', { exact: true }).fill('20');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/coupons\?saved=1/);
      await page.getByRole('button', { name: 'Disable EID15' }).click();
      await page.waitForURL(/\/merchant\/coupons\?saved=1/);
      return { refused, list: await page.locator('main').innerText() };
    });
    expect(seen.refused).to.not.equal('');
    expect(seen.list).to.contain('EID15').and.to.contain('20.00%').and.to.contain('Disabled');
    const row = await deps.knex('coupons').where({ store_id: storeId, code: 'EID15' }).first();
    expect({ amount: Number(row.amount), max_uses: row.max_uses, active: row.active }).to.deep.equal({
      amount: 2000,
      max_uses: 10,
      active: false,
    });
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ store_id: storeId, resource_type: 'coupon' })
      .orderBy('id')
      .pluck('action');
    expect(audit).to.deep.equal(['coupon.created', 'coupon.updated', 'coupon.updated']);
  });

  it('adds a webhook endpoint with its secret shown once, shows a failed delivery and sends it again', async () => {
    const secret = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/webhooks?lang=en');
      await page.getByLabel('Address (URL)').fill('http://127.0.0.1:9/hooks/matjar');
      await page.getByLabel('order.paid', { exact: true }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      return page
        .getByLabel('Signing secret of the new endpoint: copy it now, it is shown only once')
        .inputValue();
    });
    expect(secret).to.match(/^whsec_/);
    const [deliveryId] = await recordMerchantEvent(deps.knex, storeId, {
      id: 'order.paid:webhook-test',
      type: 'order.paid',
      data: { order_id: 1 },
    });
    await deps
      .knex('merchant_webhook_deliveries')
      .where({ id: deliveryId })
      .update({ status: 'failed', attempts: 12, response_status: 500, last_error: 'endpoint answered 500' });
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/webhooks?lang=en');
      const log = await page.locator('section', { hasText: 'Recent deliveries' }).innerText();
      await page.getByRole('button', { name: `Send again #${deliveryId}` }).click();
      return { log, notice: await page.getByRole('status').innerText() };
    });
    expect(seen.log)
      .to.contain('order.paid')
      .and.to.contain('Failed')
      .and.to.contain('endpoint answered 500');
    expect(seen.notice).to.equal('The delivery is queued to be sent again.');
    expect(
      (await deps.knex('merchant_webhook_deliveries').where({ id: deliveryId }).first()).status,
    ).to.equal('pending');
    const jobs = await deps.queues['merchant-webhooks'].getJobs(['waiting', 'delayed', 'active']);
    expect(jobs.map((j) => j.id)).to.satisfy((ids: string[]) =>
      ids.some((id) => id.includes(`merchant-webhook-${deliveryId}-replay-`)),
    );

    // "Send test event": a signed sample of the chosen type, marked as a test, queued like any delivery.
    const tested = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/webhooks?lang=en');
      await page.getByLabel('Test event type').selectOption('refund.succeeded');
      await page.getByRole('button', { name: 'Send test event http://127.0.0.1:9/hooks/matjar' }).click();
      return page.getByRole('status').innerText();
    });
    expect(tested).to.match(/^A signed test event is queued/);
    const test = await deps
      .knex('merchant_webhook_deliveries')
      .where({ store_id: storeId, test: true })
      .first();
    expect(test.event_type).to.equal('refund.succeeded');
    const payload = typeof test.payload === 'string' ? JSON.parse(test.payload) : test.payload;
    expect(payload).to.include({ type: 'refund.succeeded', test: true });
    expect(payload.id).to.match(/^test_/);
  });

  it('adds a category (a bad slug refused) and deletes it', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/categories?lang=en');
      await page.getByLabel('Category name').fill('Gift cards');
      await page.getByLabel('Address name (slug)').fill('Gift Cards!');
      await page.getByRole('button', { name: 'Add category' }).click();
      const refused = await page.locator('#category-slug-error').innerText();
      await page.getByLabel('Address name (slug)').fill('gift-cards');
      await page.getByRole('button', { name: 'Add category' }).click();
      await page.waitForURL(/done=added/);
      const listed = await page.locator('main').innerText();
      const row = await deps
        .knex('categories')
        .where({ store_id: storeId, slug: 'gift-cards' })
        .first('name');
      await page.getByRole('button', { name: 'Delete Gift cards' }).click();
      await page.waitForURL(/done=deleted/);
      return { refused, listed, row, notice: await page.getByRole('status').innerText() };
    });
    expect(seen.refused).to.not.equal('');
    expect(seen.listed).to.contain('Gift cards').and.to.contain('gift-cards');
    expect(seen.row).to.deep.equal({ name: 'Gift cards' });
    expect(seen.notice).to.equal('The category is deleted; its products stay.');
    expect(await deps.knex('categories').where({ store_id: storeId, slug: 'gift-cards' })).to.have.length(0);
  });

  it('sets up mada with a write-only secret key (kept when left empty), refuses a bad IBAN, and removes mada', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/payments?lang=en');
      const mada = page.locator('form[action="/merchant/payments/mada"]');
      await mada.getByLabel('Provider').selectOption('moyasar');
      await mada.getByLabel(/^Secret key/).fill('sk_test_dashboard_1234');
      await mada.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/saved=mada/);
      const afterFirst = await page.content();
      // Saved again with the key left empty: the stored key stays (moyasar cannot work without it).
      await page
        .locator('form[action="/merchant/payments/mada"]')
        .getByRole('button', { name: 'Save' })
        .click();
      await page.waitForURL(/saved=mada/);
      const bank = page.locator('form[action="/merchant/payments/bank"]');
      await bank.getByLabel('IBAN').fill('not an iban');
      await bank.getByRole('button', { name: 'Save' }).click();
      const refused = await page.getByRole('alert').innerText();
      const row = await deps
        .knex('store_payment_methods')
        .where({ store_id: storeId, method: 'mada' })
        .first();
      await page
        .locator('form[action="/merchant/payments/mada"]')
        .getByRole('button', { name: 'Remove' })
        .click();
      await page.waitForURL(/removed=mada/);
      return { afterFirst, refused, row, notice: await page.getByRole('status').innerText() };
    });
    expect(seen.afterFirst).to.not.contain('sk_test_dashboard_1234');
    expect(seen.afterFirst).to.contain('saved; leave empty to keep it');
    expect(seen.row.provider).to.equal('moyasar');
    expect(JSON.stringify(seen.row)).to.not.contain('sk_test_dashboard_1234');
    expect(deps.cipher.decrypt(seen.row.credentials_encrypted)).to.contain('sk_test_dashboard_1234');
    expect(seen.refused).to.contain('iban');
    expect(seen.notice).to.equal('mada is removed.');
    expect(
      await deps.knex('store_payment_methods').where({ store_id: storeId, method: 'mada' }),
    ).to.have.length(0);
  });

  it('makes a licensed product with a category and a FiveM command through the form, kept on a later save', async () => {
    const [cat] = await deps
      .knex('categories')
      .insert({ store_id: storeId, name: 'Software', slug: 'software', position: 0 })
      .returning('id');
    const categoryId = (cat as { id: number }).id;
    // The form shows FiveM commands once FiveM is on for the store: it has a live game server.
    const server = await createFivemServer(deps.knex, storeId, 'Form test server');
    const productId = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/products/new?lang=en');
      await page.getByLabel('Name', { exact: true }).fill('Server pack');
      await page.getByLabel('Price', { exact: true }).fill('75.00');
      await page.getByLabel('Software').check();
      await page.getByLabel('Generate a license key for each sale').check();
      await page.getByLabel('Key prefix').fill('SRV');
      await page.getByLabel('Lock to').selectOption('hwid');
      await page.getByLabel('Activations per key').fill('3');
      await page.getByLabel('FiveM commands').fill('give {player} vip');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      // Saved again with only the name changed: the settings stay.
      await page.getByLabel('Name', { exact: true }).fill('Server pack 2');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      expect(await page.getByLabel('Key prefix').inputValue()).to.equal('SRV');
      expect(await page.getByLabel('Software').isChecked()).to.equal(true);
      return Number(/products\/(\d+)/.exec(page.url())![1]);
    });
    const product = await deps.knex('products').where({ id: productId }).first();
    expect(product.name).to.equal('Server pack 2');
    expect(JSON.stringify(product)).to.contain('SRV');
    const commands = await deps
      .knex('product_fivem_commands')
      .where({ product_id: productId })
      .pluck('command');
    expect(commands).to.deep.equal(['give {player} vip']);
    const cats = await deps.knex('product_categories').where({ product_id: productId }).pluck('category_id');
    expect(cats).to.deep.equal([categoryId]);
    await revokeFivemServers(deps.knex, storeId, { id: server.id });
  });

  it('makes a subscription with two plans and a custom field through the form; the Embed API shows them', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/products/new?lang=en');
      await page.getByLabel('Name', { exact: true }).fill('Server VIP');
      await page.getByLabel('Type', { exact: true }).selectOption('subscription');
      await page.getByLabel('Price', { exact: true }).fill('0');
      await page.getByLabel('Plan title').nth(0).fill('Monthly VIP');
      await page.getByLabel('Price SAR').nth(0).fill('19.99');
      await page.getByLabel('Plan title').nth(1).fill('Yearly VIP');
      await page.getByLabel('Price SAR').nth(1).fill('199.50');
      await page.getByLabel('Billing interval').nth(1).selectOption('yearly');
      await page.getByLabel('Label', { exact: true }).nth(0).fill('Player id');
      await page.getByLabel('Required', { exact: true }).nth(0).check();
      await page.getByLabel('Label', { exact: true }).nth(1).fill('Edition');
      await page.getByLabel('Kind of answer').nth(1).selectOption('select');
      await page.getByLabel('Options (select fields)').nth(1).fill('Standard\nDeluxe | 15.50');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      const productId = Number(/products\/(\d+)/.exec(page.url())![1]);
      // The saved form shows both plans and both fields, then two blank rows of each.
      const rows = await page.getByLabel('Plan title').count();
      // The monthly plan removed, the edition field removed: the product keeps one of each.
      await page.getByLabel('Remove').nth(0).check();
      await page.getByLabel('Remove').nth(3).check();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      return { productId, rows, plans: await page.getByLabel('Plan title').count() };
    });
    expect(seen.rows).to.equal(4);
    expect(seen.plans).to.equal(3);
    const answer = await fetch(`${base}/api/embed/product/${seen.productId}`, {
      headers: { 'X-Embed-Key': embedKey },
    });
    const data = (
      (await answer.json()) as {
        data: {
          type: string;
          subscription_plans: { name: string; price: string; duration: string }[];
          fields: { label: string; type: string; required: boolean }[];
        };
      }
    ).data;
    expect(data.type).to.equal('subscription');
    expect(data.subscription_plans.map((p) => [p.name, p.price, p.duration])).to.deep.equal([
      ['Yearly VIP', '199.50', 'yearly'],
    ]);
    expect(data.fields.map((f) => [f.label, f.type, f.required])).to.deep.equal([
      ['Player id', 'text', true],
    ]);
    const plans = await deps
      .knex('product_plans')
      .where({ product_id: seen.productId })
      .orderBy('id')
      .select('name', 'price_minor', 'active');
    expect(plans.map((p) => [p.name, Number(p.price_minor), p.active])).to.deep.equal([
      ['Monthly VIP', 1999, false],
      ['Yearly VIP', 19950, true],
    ]);
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ store_id: storeId, resource_type: 'product', resource_id: seen.productId })
      .pluck('action');
    expect(audit).to.include.members(['product.created', 'product.updated']);
  });

  it('lists a customer’s latest orders on the customers page, and the order page shows its audit rows', async () => {
    const [customer] = await deps
      .knex('customers')
      .insert({
        store_id: storeId,
        first_name: 'Noura',
        last_name: 'Saad',
        email: 'noura@example.com',
        country_code: '966',
        phone: '500000321',
        e164: '966500000321',
      })
      .returning('id');
    const customerId = (customer as { id: number }).id;
    const orderIds: number[] = [];
    const orderNumbers: number[] = [];
    for (const [status, total] of [
      [4, 12_500],
      [2, 3_000],
    ]) {
      const [row] = await deps
        .knex('orders')
        .insert({
          store_id: storeId,
          customer_id: customerId,
          status,
          customer_first_name: 'Noura',
          customer_last_name: 'Saad',
          customer_email: 'noura@example.com',
          customer_country_code: '966',
          customer_phone: '500000321',
          subtotal_minor: total,
          total_minor: total,
          currency: 'SAR',
        })
        .returning(['id', 'number']);
      orderIds.push((row as { id: number }).id);
      orderNumbers.push((row as { number: number }).number);
    }
    // What the Merchant API's audit net records after an order write through a token.
    await recordAudit(
      deps.knex,
      { storeId, tokenId: null, name: 'token:Fulfilment bot' },
      'POST /shawarma/orders/:id/status',
      { type: 'order', id: orderIds[0]! },
      { request: { status: 4 } },
    );
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/customers?lang=en');
      const orders = await page.getByRole('list', { name: 'Orders of Noura Saad' }).innerText();
      await page.getByRole('link', { name: `#${orderNumbers[0]}`, exact: true }).click();
      await page.waitForURL(new RegExp(`/merchant/orders/${orderIds[0]}`));
      const audit = await page.locator('[data-audit]').innerText();
      return { orders, audit };
    });
    expect(seen.orders).to.contain(`#${orderNumbers[0]}`).and.contain(`#${orderNumbers[1]}`);
    expect(seen.orders).to.contain('125.00').and.contain('30.00');
    expect(seen.audit).to.contain('token:Fulfilment bot');
    expect(seen.audit).to.contain('POST /shawarma/orders/:id/status');
    expect(seen.audit).to.contain('"status":4');
  });

  it('the settings page’s live preview opens the real widget dialog with the store’s product', async () => {
    const product = await deps
      .knex('products')
      .where({ store_id: storeId, active: true })
      .whereNull('archived_at')
      .orderBy('id', 'desc')
      .first('id', 'name');
    const seen = await withPage(async (page) => {
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text());
      });
      await openAsOwner(page, '/merchant/settings?lang=en');
      await page.getByRole('button', { name: 'Buy now · dark theme' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: product.name }).waitFor();
      return { refused, visible: await dialog.isVisible() };
    });
    expect(seen.visible).to.equal(true);
    expect(seen.refused).to.deep.equal([]);
  });

  it('adds a FiveM server whose secret is shown once and reads the queue until it is revoked', async () => {
    const seen = await withPage(async (page) => {
      await openAsOwner(page, '/merchant/fivem?lang=en');
      await page.getByLabel('Server name').fill('Main city');
      await page.getByRole('button', { name: 'Add server' }).click();
      const secret = await page
        .getByLabel('The server’s secret: copy it into the resource’s config now, it is shown only once')
        .inputValue();
      const before = await fetch(`${base}/api/fivem/queue`, { headers: { 'X-FiveM-Secret': secret } });
      await page.goto(`${base}/merchant/fivem?lang=en`);
      const listed = await page.locator('main').innerText();
      await page.getByRole('button', { name: 'Revoke Main city' }).click();
      await page.waitForURL(/revoked=1/);
      const after = await fetch(`${base}/api/fivem/queue`, { headers: { 'X-FiveM-Secret': secret } });
      return { secret, before: before.status, listed, after: after.status };
    });
    expect(seen.secret).to.match(/^fvm_/);
    expect(seen.before).to.equal(200);
    expect(seen.listed).to.contain('Main city').and.not.contain(seen.secret);
    expect(seen.after).to.equal(401);
  });

  it('has no serious or critical axe-core violation on any page, in English and Arabic', async () => {
    const axe = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const found: string[] = [];
    for (const lang of ['en', 'ar']) {
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
          for (const path of ['/merchant/signin', '/merchant/signup']) {
            await page.goto(`${base}${path}?lang=${lang}`);
            await scan(path);
          }
          await openAsOwner(page);
          const order = await deps.knex('orders').where({ store_id: storeId }).first('id');
          const product = await deps.knex('products').where({ store_id: storeId }).first('id');
          const pages = [
            '/merchant',
            '/merchant/orders',
            '/merchant/customers',
            '/merchant/products',
            '/merchant/products/new',
            '/merchant/staff',
            '/merchant/security',
            '/merchant/settings',
            '/merchant/licenses',
            '/merchant/reviews?show=all',
            '/merchant/tokens',
            '/merchant/coupons',
            '/merchant/coupons/new',
            '/merchant/webhooks',
            '/merchant/categories',
            '/merchant/payments',
            '/merchant/fivem',
          ];
          const license = await deps.knex('licenses').where({ store_id: storeId }).first('id');
          if (license) pages.push(`/merchant/licenses/${license.id}`);
          if (order) pages.push(`/merchant/orders/${order.id}`);
          if (product) pages.push(`/merchant/products/${product.id}`);
          for (const path of pages) {
            await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
            await scan(path);
          }
        },
        // The pages allow no script at all; the scanner is let in for the test only.
        { bypassCSP: true },
      );
    }
    expect(found).to.deep.equal([]);
  });

  it('fits a 360 px phone without horizontal scroll; screenshots in English and Arabic', async () => {
    const widths = { desktop: { width: 1280, height: 900 }, phone: { width: 360, height: 780 } };
    const overflow: Record<string, number> = {};
    for (const [device, viewport] of Object.entries(widths)) {
      for (const lang of ['en', 'ar']) {
        await withPage(
          async (page) => {
            await openAsOwner(page);
            for (const path of [
              '/merchant',
              '/merchant/orders',
              '/merchant/products/new',
              '/merchant/settings',
              '/merchant/coupons',
            ]) {
              await page.goto(`${base}${path}?lang=${lang}`);
              overflow[`${device} ${lang} ${path}`] = await page
                .locator('html')
                .evaluate((el) => el.scrollWidth - el.clientWidth);
              const name = path.split('/').filter(Boolean).join('-');
              await page.screenshot({ path: `/tmp/dashboard-${name}-${lang}-${device}.png`, fullPage: true });
            }
            await page.context().clearCookies();
            await page.goto(`${base}/merchant/signin?lang=${lang}`);
            await page.screenshot({ path: `/tmp/dashboard-signin-${lang}-${device}.png`, fullPage: true });
          },
          { viewport },
        );
      }
    }
    for (const [page, extra] of Object.entries(overflow)) expect(extra, page).to.be.at.most(0);
  });
});

describe('merchant dashboard cookies over https', function () {
  this.timeout(60_000);

  it('marks every dashboard cookie Secure when the platform is served over https', async () => {
    const deps = await isolatedDeps({ PUBLIC_BASE_URL: 'https://matjar.example' });
    const server = await startServer(deps);
    try {
      const res = await server.request('/merchant/signup', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          store_name: 'Secure Store',
          country_code: '966',
          phone: '500000901',
        }).toString(),
        redirect: 'manual',
      });
      expect(res.status).to.equal(303);
      const cookies = res.headers.getSetCookie();
      expect(cookies).to.have.length(2);
      for (const cookie of cookies) {
        expect(cookie).to.match(/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
        expect(cookie).to.contain('Path=/merchant');
      }
    } finally {
      await server.close();
    }
  });
});
