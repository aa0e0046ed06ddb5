import crypto from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApp } from '../../api/app';
import { ORDER_STATUS, type Product, type Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { sendDeliveryResend } from '../../shared/services/fulfilment/resend';
import { withPage } from '../helpers/browser';
import { createProduct, createStore } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { dashboardLogin, type DashboardLogin } from '../integration/dashboard/support';
import { seedOrder } from '../integration/merchant/support';
import { freePort } from './support';

/**
 * The dashboard's delivery tools in headless Chromium: the order page sends the delivery again by message
 * or by e-mail (a double click sends once) and lists each e-mail with its purpose and bounce state; the
 * product's files page moves its progress bar while a large file goes up.
 */
describe('merchant dashboard: sending the delivery again, and the upload progress bar', function () {
  this.timeout(120_000);
  const dir = path.join(os.tmpdir(), `matjar-r39-${crypto.randomBytes(4).toString('hex')}`);
  let deps: Deps;
  let server: http.Server;
  let base: string;
  let store: Store;
  let product: Product;
  let owner: DashboardLogin;
  let orderId: number;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, RATE_LIMITS: 'off', STORAGE_DIR: dir });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    store = await createStore();
    product = await createProduct(store, { type: 'code', name: 'Gift card' });
    const order = await seedOrder(deps.knex, store, product, {
      status: ORDER_STATUS.COMPLETED,
      email: 'buyer@r39.test',
      phone: '593900011',
    });
    orderId = order.id;
    await deps.knex('product_codes').insert({
      product_id: product.id,
      code: 'GIFT-R39-0001',
      status: 'sold',
      order_item_id: order.itemId,
    });
    await deps.knex('order_items').where('id', order.itemId).update({ delivered_at: new Date() });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  async function signIn(page: Page): Promise<void> {
    const [name, value] = owner.cookie.split('=') as [string, string];
    await page.context().addCookies([{ name, value, url: base }]);
  }

  const resendEmails = () =>
    deps
      .knex('emails')
      .where({ order_id: orderId, purpose: 'order_delivery' })
      .where('key', 'like', `order-delivery-resend:${orderId}:email:%`);
  const resendAudits = () =>
    deps.knex('merchant_audit_events').where({
      store_id: store.id,
      action: 'order.delivery_resent',
      resource_id: orderId,
    });

  it('resends by e-mail once for a double click, then by message; the e-mail list shows purposes and a bounce', async () => {
    // An earlier refund e-mail that bounced, as the e-mail worker records one.
    await deps.knex('emails').insert({
      store_id: store.id,
      order_id: orderId,
      purpose: 'refund',
      key: `refund:${orderId}`,
      to: 'buyer@r39.test',
      locale: 'en',
      template: 'refund',
      payload: deps.cipher.encrypt('{}'),
      driver: 'outbox',
      status: 'bounced',
      error_code: '550',
      error_message: 'mailbox unavailable',
    });

    const seen = await withPage(async (page) => {
      await signIn(page);
      await page.goto(`${base}/merchant/orders/${orderId}?lang=en`);
      const card = page.locator('section[data-resend]');
      expect(await card.getByRole('heading').innerText()).to.equal('Send the delivery again');
      // Two submits of the same rendered form at once (what a double click can send), from the page itself.
      const answers = (await page.evaluate(`(async () => {
        const form = [...document.querySelectorAll('section[data-resend] form')].find(
          (f) => f.querySelector('input[name=channel]').value === 'email');
        const body = new URLSearchParams(new FormData(form));
        const post = () => fetch(form.action, { method: 'POST', body, credentials: 'same-origin' }).then((r) => r.status);
        return Promise.all([post(), post()]);
      })()`)) as number[];
      // Then the button itself, double-clicked: the same nonce again.
      await card.getByRole('button', { name: 'Resend by e-mail' }).dblclick();
      await page.waitForLoadState('load');
      const afterEmail = await page.getByRole('status').innerText();
      await page.locator('section[data-resend]').getByRole('button', { name: 'Resend by message' }).click();
      await page.waitForLoadState('load');
      const afterMessage = await page.getByRole('status').innerText();
      const emailList = await page.locator('section', { hasText: 'E-mails to the buyer' }).innerText();
      await page.goto(`${base}/merchant/orders/${orderId}?lang=ar`);
      const arabic = {
        dir: await page.locator('html').getAttribute('dir'),
        card: await page.locator('section[data-resend]').innerText(),
        emails: await page.locator('li[data-email-purpose="refund"]').innerText(),
      };
      return { answers, afterEmail, afterMessage, emailList, arabic };
    });

    expect(seen.answers).to.deep.equal([200, 200]);
    expect(seen.afterEmail).to.be.oneOf([
      'The delivery is on its way again by e-mail.',
      'That resend was sent already.',
    ]);
    expect(seen.afterMessage).to.equal('The delivery is on its way again by message.');
    // One e-mail and one audit row for the e-mail form, however often it went; one for the message.
    const emails = await resendEmails();
    expect(emails).to.have.length(1);
    expect(emails[0]).to.include({ to: 'buyer@r39.test', template: 'delivery' });
    const audits = await resendAudits();
    expect(audits.map((a) => a.changes.channel).sort()).to.deep.equal(['email', 'message']);
    expect(seen.emailList)
      .to.contain('Delivery')
      .and.to.contain('Refund')
      .and.to.contain('Bounced: the address does not take mail');
    expect(seen.arabic.dir).to.equal('rtl');
    expect(seen.arabic.card).to.contain('إعادة إرسال التسليم').and.to.contain('إعادة الإرسال برسالة');
    expect(seen.arabic.emails).to.contain('استرداد');

    // The message job the button staged, run twice (a redelivered job): one message, with the key.
    const messageKey = (audits.find((a) => a.changes.channel === 'message')!.changes as { key: string }).key;
    const outcomes = await Promise.all([
      sendDeliveryResend(deps, orderId, messageKey),
      sendDeliveryResend(deps, orderId, messageKey),
    ]);
    expect([...outcomes].sort()).to.deep.equal(['already-sent', 'sent']);
    const messages = await deps
      .knex('outbound_messages')
      .where({ to: '966593900011', purpose: 'order_delivery' });
    expect(messages).to.have.length(1);
    expect(messages[0].body).to.contain('GIFT-R39-0001');
  });

  it('refuses a resend of an unpaid order, and support staff may resend while a form from nowhere may not', async () => {
    const unpaid = await seedOrder(deps.knex, store, product, {
      status: ORDER_STATUS.AWAITING_PAYMENT,
      email: 'buyer@r39.test',
      phone: '593900012',
    });
    const support = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'support');
    const nonce = crypto.randomBytes(16).toString('hex');
    const post = (id: number, login: DashboardLogin, fields: Record<string, string>) =>
      fetch(`${base}/merchant/orders/${id}/resend`, {
        method: 'POST',
        headers: {
          cookie: login.cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: base,
          'Sec-Fetch-Site': 'same-origin',
        },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
    const refused = await post(unpaid.id, support, { _csrf: support.csrf, channel: 'email', nonce });
    expect(refused.status).to.equal(422);
    expect(await refused.text()).to.match(/Only a paid order|لا يُعاد إرسال التسليم إلا لطلب مدفوع/);
    const noToken = await post(orderId, support, { channel: 'message', nonce });
    expect(noToken.status).to.equal(403);
    const badChannel = await post(orderId, support, { _csrf: support.csrf, channel: 'fax', nonce });
    expect(badChannel.status).to.equal(422);
    const before = (await resendAudits()).length;
    const ok = await post(orderId, support, { _csrf: support.csrf, channel: 'message', nonce });
    expect(ok.status).to.equal(200);
    expect(await resendAudits()).to.have.length(before + 1);
  });

  it('moves the upload progress bar while a 64 MiB file goes up, and ends with the file listed', async () => {
    const filesProduct = await createProduct(store, { type: 'product', name: 'Big guide' });
    const file = path.join(os.tmpdir(), `r39-progress-${crypto.randomBytes(4).toString('hex')}.bin`);
    await writeFile(file, crypto.randomBytes(64 * 1024 * 1024));
    try {
      const seen = await withPage(async (page) => {
        await signIn(page);
        // Records the bar after each upload progress event the page's own listener handled.
        await page.addInitScript({
          content: `(() => {
            const send = XMLHttpRequest.prototype.send;
            XMLHttpRequest.prototype.send = function (body) {
              this.upload.addEventListener('progress', () => {
                const bar = document.getElementById('file-progress');
                const list = JSON.parse(sessionStorage.getItem('r39-progress') || '[]');
                list.push([bar.value, bar.max]);
                sessionStorage.setItem('r39-progress', JSON.stringify(list));
              });
              return send.call(this, body);
            };
          })();`,
        });
        await page.goto(`${base}/merchant/products/${filesProduct.id}/files?lang=en`);
        await page.getByLabel('File to upload').setInputFiles(file);
        await Promise.all([
          page.waitForEvent('load'),
          page.getByRole('button', { name: 'Upload', exact: true }).click(),
        ]);
        await page.waitForLoadState('load');
        return {
          progress: JSON.parse(
            ((await page.evaluate(`sessionStorage.getItem('r39-progress')`)) as string | null) ?? '[]',
          ) as number[][],
          table: await page.locator('table').innerText(),
        };
      });
      const values = seen.progress.map(([value]) => value!);
      const max = seen.progress[seen.progress.length - 1]![1]!;
      expect(max).to.be.above(64 * 1024 * 1024);
      // It moved: more than one reading, never backwards, some part way, and the last one is the whole body.
      expect(values.length).to.be.above(1);
      expect(values.every((v, i) => i === 0 || v >= values[i - 1]!)).to.equal(true);
      expect(values.some((v) => v > 0 && v < max)).to.equal(true);
      expect(values[values.length - 1]).to.equal(max);
      expect(seen.table).to.contain(path.basename(file));
    } finally {
      await rm(file, { force: true });
    }
  });
});
