import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { DASHBOARD_STRINGS } from '../../../api/dashboard/i18n';
import { LAUNCH_TEXT } from '../../../api/dashboard/pages/launch/strings';
import { newPage } from '../../helpers/browser';
import { deliverQueuedOtps } from '../../helpers/otp';
import { startWorld, waitFor, type WidgetWorld } from '../widget/support';

/**
 * A merchant's first hour, end to end, in Arabic on a 390 px phone, in headless Chromium (docs/dashboard.md,
 * "Launch checklist"; docs/widget.md, "The goods after paying"): sign up, read the checklist, turn on the
 * sandbox card, add a code product with keys, copy its widget snippet, buy it from the widget on a page of
 * the merchant's own, see the key in the success state, find the order as #1 and refund it. Screenshots go
 * to a scratch folder; FIRST_HOUR_SCREENSHOTS=docs writes them to docs/ (how docs/first-hour-*.png are made).
 */

const ar = DASHBOARD_STRINGS.ar;
const launch = LAUNCH_TEXT.ar;
const PHONE = '594000401';
const PHONE_SIZE = { width: 390, height: 844 };
const SHOTS = process.env.FIRST_HOUR_SCREENSHOTS
  ? path.resolve(process.env.FIRST_HOUR_SCREENSHOTS)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'first-hour-'));

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, name), fullPage: false });
}

describe('a merchant’s first hour ends in a sale (Arabic, 390 px)', function () {
  this.timeout(120_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function codeFor(e164: string): Promise<string> {
    return waitFor('the sign-up code in the outbox', async () => {
      await deliverQueuedOtps(world.deps);
      const res = await fetch(`${world.api}/__dev/outbox?to=${e164}`);
      const body = (await res.json()) as { messages: { body: string }[] };
      return body.messages[0]?.body.match(/(?<!\d)\d{4,8}(?!\d)/)?.[0];
    });
  }

  it('signs up, follows the checklist, sells a code key through the widget, sees it, and refunds order #1', async () => {
    const merchant = await newPage({ viewport: PHONE_SIZE, locale: 'ar-SA' });
    const buyer = await newPage({ viewport: PHONE_SIZE, locale: 'ar-SA' });
    try {
      // Sign up.
      await merchant.goto(`${world.api}/merchant/signup?lang=ar`);
      await merchant.getByLabel(ar.storeName).fill('متجر الساعة الأولى');
      await merchant.locator('input[autocomplete="tel-national"]').fill(PHONE);
      await merchant.getByRole('button', { name: ar.sendCode }).click();
      await merchant.waitForURL(/\/merchant\/code/);
      await merchant.locator('input[autocomplete="one-time-code"]').fill(await codeFor(`966${PHONE}`));
      await merchant.getByRole('button', { name: ar.verify }).click();
      await merchant.waitForURL(`${world.api}/merchant`);

      // The checklist: nothing done, the missing payment method flagged.
      const checklist = merchant.locator('[data-launch-checklist]');
      await checklist.waitFor();
      expect(await merchant.locator('html').getAttribute('dir')).to.equal('rtl');
      expect(await checklist.locator('[data-done=true]').count()).to.equal(0);
      expect(await merchant.locator('[data-no-payment-method]').innerText()).to.contain(launch.noPaymentFlag);
      await shot(merchant, 'first-hour-checklist-ar-phone.png');

      // Turn on the sandbox card from the checklist's link.
      await checklist.getByRole('link', { name: launch.items.payment }).click();
      await merchant.waitForURL(/\/merchant\/payments/);
      const card = merchant.locator('form[action="/merchant/payments/card"]');
      await card.locator('select[name=provider]').selectOption('sandbox');
      await card.getByRole('button', { name: ar.save, exact: true }).click();
      await merchant.waitForURL(/\/merchant\/payments/);
      expect(await merchant.locator('[data-no-payment-method]').count()).to.equal(0);

      // Add a code product with two keys.
      await merchant.goto(`${world.api}/merchant/products/new`);
      await merchant.locator('#name').fill('بطاقة ألعاب 50');
      await merchant.locator('#type').selectOption('code');
      await merchant.locator('#price').fill('50.00');
      await merchant.locator('#codes').fill('FIRST-HOUR-KEY-1\nFIRST-HOUR-KEY-2');
      await merchant.getByRole('button', { name: ar.save, exact: true }).click();
      await merchant.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      const productId = Number(/products\/(\d+)/.exec(merchant.url())![1]);

      // Copy its widget snippet (the real product id and embed key).
      const snippet = await merchant.locator('#product-snippet').inputValue();
      expect(snippet).to.contain(`data-matjar-product="${productId}"`);
      await merchant.getByRole('button', { name: launch.copy }).click();
      await merchant.locator('[data-copy-status]').filter({ hasText: launch.copied }).waitFor();
      await waitFor('the copy noted', async () => {
        const store = await world.deps.knex('stores').where({ name: 'متجر الساعة الأولى' }).first();
        return store?.widget_snippet_copied_at ?? undefined;
      });
      await merchant.goto(`${world.api}/merchant`);
      const steps = await checklist
        .locator('li')
        .evaluateAll((els) => els.map((e) => [e.getAttribute('data-step'), e.getAttribute('data-done')]));
      expect(Object.fromEntries(steps)).to.deep.equal({
        payment: 'true',
        product: 'true',
        keys: 'true',
        share: 'true',
        test_purchase: 'false',
      });

      // The buyer, on the merchant's own page with the snippet pasted.
      const url = world.page(
        '/first-hour',
        `<!doctype html><html lang="ar" dir="rtl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>متجري</title></head><body><h1>متجري</h1>${snippet.replace(/ id="[^"]*"/, '').replace('<button ', '<button id="buy" ')}</body></html>`,
      );
      await buyer.goto(url);
      await buyer.locator('#buy[aria-haspopup=dialog]').waitFor();
      await buyer.locator('#buy').click();
      const dialog = buyer.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'بطاقة ألعاب 50' }).waitFor();
      await dialog.locator('[autocomplete=given-name]').fill('نورة');
      await dialog.locator('[autocomplete=family-name]').fill('صالح');
      await dialog.locator('[autocomplete=email]').fill('noura@i40.test');
      await dialog.locator('[autocomplete=tel-national]').fill('0594000402');
      await dialog.locator('input[type=radio][value=card]').check();
      const popupOpened = buyer.context().waitForEvent('page');
      await dialog.locator('button', { hasText: /^ادفع / }).click();
      const popup = await popupOpened;
      const pay = popup.locator('form:has(input[name=outcome][value=paid]) button');
      await pay.waitFor({ timeout: 20_000 });
      const payUrl = popup.url().split('?')[0]!;
      await pay.click();

      // The key, at once, in the success state; and the store's own order number.
      const key = dialog.locator('[data-key]');
      await key.first().waitFor({ timeout: 30_000 });
      expect(await key.allInnerTexts()).to.deep.equal(['FIRST-HOUR-KEY-1']);
      expect(await dialog.locator('[data-order-number]').getAttribute('data-order-number')).to.equal('1');
      expect(await dialog.innerText()).to.contain('+966 ••••••402');
      await shot(buyer, 'first-hour-widget-key-ar-phone.png');

      // The merchant finds it as #1 and refunds it.
      await merchant.goto(`${world.api}/merchant/orders`);
      await merchant.getByText('#1', { exact: true }).click();
      await merchant.waitForURL(/\/merchant\/orders\/\d+/);
      expect(await merchant.locator('h1').innerText()).to.contain('#1');
      // The payment method and its status in Arabic, not the API's ids.
      expect(await merchant.locator('[data-payment-method=card]').innerText()).to.equal(
        'بطاقة ائتمانية (مدفوعة)',
      );
      await shot(merchant, 'first-hour-order-ar-phone.png');
      await merchant.locator('form[action$="/refund"] button[type=submit]').click();
      await merchant.getByRole('button', { name: ar.yesDoIt }).click();
      const orderId = Number(/orders\/(\d+)/.exec(merchant.url())![1]);
      await waitFor('the order refunded', async () => {
        const o = await world.deps.knex('orders').where({ id: orderId }).first();
        return o?.status === 6 ? o : undefined;
      });
      // The hosted payment page, opened again in the buyer's browser, no longer says the payment was received.
      const again = await buyer.context().newPage();
      await again.goto(payUrl);
      expect(await again.locator('[data-order-state]').getAttribute('data-order-state')).to.equal('refunded');
      expect(await again.locator('body').innerText()).to.not.contain('FIRST-HOUR-KEY-1');
    } finally {
      await merchant.context().close();
      await buyer.context().close();
    }
  });
});
