import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { newPage } from '../../helpers/browser';
import { createProduct } from '../../helpers/builders';
import {
  coupon,
  events,
  merchantPage,
  openWidget,
  recordEvents,
  shop,
  shownOrderId,
  startWorld,
  WidgetWorld,
} from './support';

/**
 * How the widget behaves on a merchant's page: themes and Arabic right-to-left, the keyboard alone, a
 * strict Content-Security-Policy, custom fields with uploads checked before sending, bank transfer details
 * with copy buttons, and the spec's back-off after a 429.
 *
 * WIDGET_SCREENSHOTS=DIR saves the dialog's screenshots there (how docs/widget-*.png are made).
 */

const UPLOADS = path.resolve(__dirname, '../../fixtures/uploads');

async function screenshot(page: Page, name: string): Promise<Buffer> {
  const shot = await page.getByRole('dialog').screenshot();
  const dir = process.env.WIDGET_SCREENSHOTS;
  if (dir) fs.writeFileSync(path.join(dir, `widget-${name}.png`), shot);
  return shot;
}

/** The computed value of a CSS property of the first element matching `selector` in the widget. */
function styleOf(page: Page, selector: string, property: string): Promise<string> {
  return page.evaluate(
    `getComputedStyle(document.querySelector('[data-matjar-widget]').shadowRoot.querySelector(${JSON.stringify(
      selector,
    )})).getPropertyValue(${JSON.stringify(property)})`,
  );
}

const activeIsWidget = (page: Page): Promise<boolean> =>
  page.evaluate(`!!document.activeElement && document.activeElement.matches('[data-matjar-widget]')`);

const activeDescription = (page: Page): Promise<string> =>
  page.evaluate(`(() => {
    const host = document.activeElement;
    const el = host && host.shadowRoot ? host.shadowRoot.activeElement : host;
    if (!el) return '';
    return [el.tagName, el.getAttribute('type') || '', el.getAttribute('autocomplete') || '', el.value || '',
      (el.textContent || '').trim()].join('|');
  })()`);

/** Presses Tab until the focused element matches, as a keyboard user would. */
async function tabTo(page: Page, pattern: RegExp, max = 30): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (pattern.test(await activeDescription(page))) return;
  }
  throw new Error(`Tab never reached ${pattern} (last: ${await activeDescription(page)})`);
}

describe('checkout widget: themes, languages, keyboard, CSP and errors in a real browser', function () {
  this.timeout(60_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  it('lays Arabic out right to left in the dark theme, with Arabic method names', async () => {
    const { store, product } = await shop(world.deps);
    const url = world.page('/ar', merchantPage(world, product, store, { lang: 'ar', theme: 'dark' }));
    const page = await newPage({ viewport: { width: 480, height: 1100 } });
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect(await styleOf(page, '[role=dialog]', 'direction')).to.equal('rtl');
      expect(await styleOf(page, '[role=dialog]', 'background-color')).to.equal('rgb(23, 26, 33)');
      expect(await dialog.getByRole('button', { name: /^ادفع/ }).count()).to.equal(1);
      await dialog.getByText('تسجيل الدخول بالجوال').waitFor();
      await dialog.getByText('الاسم الأول').waitFor();
      const labels = await dialog
        .locator('input[type=radio][name^=mj-method]')
        .evaluateAll((els) => els.map((e) => (e.parentElement?.textContent ?? '').trim()));
      expect(labels).to.have.length(3);
      expect(
        labels.every((l) => /[\u0600-\u06FF]/.test(l)),
        labels.join(),
      ).to.equal(true);
      // In right-to-left layout the close button sits at the dialog's left edge.
      const close = await dialog.getByRole('button', { name: 'إغلاق' }).boundingBox();
      const box = await dialog.boundingBox();
      expect(close!.x - box!.x).to.be.below(box!.width / 2);
      expect((await screenshot(page, 'ar-dark')).length).to.be.above(1000);
    } finally {
      await page.context().close();
    }
  });

  it('follows the system colour scheme with the automatic theme and leaves one global on the page', async () => {
    const { store, product } = await shop(world.deps);
    const url = world.page('/auto', merchantPage(world, product, store));
    // The same page without the script: what the browser itself puts on window.
    const plain = world.page(
      '/plain',
      merchantPage(world, product, store).replace(/<script[^>]*><\/script>/, ''),
    );
    for (const [scheme, background] of [
      ['dark', 'rgb(23, 26, 33)'],
      ['light', 'rgb(255, 255, 255)'],
    ] as const) {
      const page = await newPage({ colorScheme: scheme, viewport: { width: 480, height: 1100 } });
      try {
        await page.goto(plain);
        const before: string[] = await page.evaluate('Object.keys(window)');
        await page.goto(url);
        await openWidget(page);
        await page.getByRole('dialog').getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
        expect(await styleOf(page, '[role=dialog]', 'background-color')).to.equal(background);
        expect(await styleOf(page, '[role=dialog]', 'direction')).to.equal('ltr');
        const after: string[] = await page.evaluate('Object.keys(window)');
        expect(after.filter((k) => !before.includes(k))).to.deep.equal(['Matjar']);
        if (scheme === 'light') await screenshot(page, 'en-light');
      } finally {
        await page.context().close();
      }
    }
  });

  it('runs with the keyboard alone: focus trapped in the dialog, Escape returns it to the button', async () => {
    const { store, product } = await shop(world.deps);
    await coupon(store, { code: 'FREEKEY', amount: 10_000 });
    const url = world.page('/keys', merchantPage(world, product, store));
    const page = await newPage();
    try {
      await page.goto(url);
      await recordEvents(page);
      await page.locator('#buy[aria-haspopup=dialog]').waitFor();
      await tabTo(page, /^BUTTON\|.*Buy now/);
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect(await activeIsWidget(page)).to.equal(true);
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press(i < 25 ? 'Tab' : 'Shift+Tab');
        expect(await activeIsWidget(page), `focus left the dialog after ${i + 1} presses`).to.equal(true);
      }
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate('document.activeElement.id')).to.equal('buy');

      // A whole free order by keyboard: guest details, coupon, confirmation.
      await page.keyboard.press('Enter');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect(await activeDescription(page)).to.match(/^INPUT\|radio\|\|guest/);
      await page.keyboard.press('ArrowRight');
      expect(await activeDescription(page)).to.match(/^INPUT\|radio\|\|phone/);
      await page.getByRole('dialog').locator('[autocomplete=tel-national]').waitFor();
      await page.keyboard.press('ArrowLeft');
      expect(await activeDescription(page)).to.match(/^INPUT\|radio\|\|guest/);
      await tabTo(page, /given-name/);
      await page.keyboard.type('Key');
      await tabTo(page, /family-name/);
      await page.keyboard.type('Board');
      await tabTo(page, /\|email\|/);
      await page.keyboard.type('keys@example.com');
      await tabTo(page, /tel-national/);
      await page.keyboard.type('500009333');
      await tabTo(page, /^INPUT\|text\|off\|/);
      await page.keyboard.type('FREEKEY');
      await page.keyboard.press('Enter');
      await dialog.getByText(/FREEKEY applied/).waitFor();
      await tabTo(page, /Get it free/);
      await page.keyboard.press('Enter');
      await shownOrderId(page);
      expect(await activeDescription(page)).to.match(/^BUTTON\|.*Done/);
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      expect((await events(page)).map(([name]) => name)).to.deep.equal([
        'matjar:open',
        'matjar:close',
        'matjar:open',
        'matjar:paid',
        'matjar:close',
      ]);
    } finally {
      await page.context().close();
    }
  });

  it('works under a strict CSP: every field type, uploads checked before sending, bank details to copy', async () => {
    const { store } = await shop(world.deps);
    const product = await createProduct(store, {
      name: 'Custom service',
      type: 'service',
      price_minor: 10_000,
      fields: [
        { type: 'text', label: 'Website', required: true },
        {
          type: 'select',
          label: 'Package',
          required: true,
          options: [
            { label: 'Basic', price_minor: 0 },
            { label: 'Pro', price_minor: 2_550 },
          ],
        },
        { type: 'number', label: 'Pages', required: false },
        { type: 'date', label: 'Start', required: false },
        { type: 'datetime', label: 'Call', required: false },
        { type: 'color', label: 'Brand colour', required: false },
        { type: 'image', label: 'Logo', required: true },
        { type: 'file', label: 'Brief', required: false },
      ],
    });
    const csp = [
      "default-src 'none'",
      `script-src ${world.api}`,
      `connect-src ${world.api}`,
      "style-src 'self'",
      "img-src 'self'",
    ].join('; ');
    const url = world.page('/csp', merchantPage(world, product, store), { 'Content-Security-Policy': csp });
    const page = await newPage({ viewport: { width: 480, height: 900 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.site });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    const checkouts: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/guest/checkout') && r.method() === 'POST') checkouts.push(r.url());
    });
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Custom service' }).waitFor();
      // The constructed stylesheet applies despite style-src 'self'.
      expect(await styleOf(page, '.mj', 'position')).to.equal('fixed');

      await dialog.getByLabel('Continue as guest').check();
      await dialog.locator('[autocomplete=given-name]').fill('Fahad');
      await dialog.locator('[autocomplete=family-name]').fill('Omar');
      await dialog.locator('[autocomplete=email]').fill('fahad@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('500009444');
      await dialog.locator('input[type=radio][value=bank]').check();

      // Required fields left empty are named before anything is sent.
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog.getByText('Please check the highlighted fields.').first().waitFor();
      expect(await dialog.locator('[aria-invalid=true]').count()).to.equal(3);

      await dialog.getByLabel('Website').fill('https://fahad.example');
      await dialog.getByLabel('Package').selectOption({ index: 2 });
      await dialog.getByLabel('Pages (optional)').fill('5');
      await dialog.getByLabel('Start (optional)').fill('2030-01-15');
      await dialog.getByLabel('Call (optional)').fill('2030-01-15T10:30');
      await dialog.getByLabel('Brand colour (optional)').fill('#ff0000');
      const logo = dialog.getByLabel('Logo');
      await logo.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
      await dialog.getByText('Please choose a JPG, JPEG, PNG, GIF file.').waitFor();
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog.getByText('Please check the highlighted fields.').first().waitFor();
      expect(checkouts).to.deep.equal([]);
      await logo.setInputFiles(path.join(UPLOADS, 'sample.png'));
      await dialog.getByLabel('Brief (optional)').setInputFiles(path.join(UPLOADS, 'sample.pdf'));
      expect(await dialog.locator('dd.t').textContent()).to.contain('125.50');

      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog.getByRole('heading', { name: 'Bank transfer' }).waitFor();
      await dialog.getByText('SA4420000001234567891234').waitFor();
      await dialog.getByRole('button', { name: 'Copy IBAN' }).click();
      await dialog.getByText('Copied').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).to.equal('SA4420000001234567891234');

      const checkout = await world.deps.knex('checkouts').where({ product_id: product.id }).first();
      expect(checkout.total_minor).to.equal(12_550);
      const values = Object.fromEntries(
        Object.entries(checkout.fields as Record<string, { value?: unknown; option?: string }>).map(
          ([k, v]) => [k, v.option ?? v.value],
        ),
      );
      expect(values).to.deep.equal({
        0: 'https://fahad.example',
        1: 'Pro',
        2: 5,
        3: '2030-01-15',
        4: '2030-01-15T10:30',
        5: '#ff0000',
        6: undefined,
        7: undefined,
      });
      const uploads = await world.deps
        .knex('checkout_uploads')
        .where({ checkout_id: checkout.id })
        .orderBy('field_index');
      expect(
        uploads.map((u: { field_index: number; mime_type: string }) => [u.field_index, u.mime_type]),
      ).to.deep.equal([
        [6, 'image/png'],
        [7, 'application/pdf'],
      ]);
      expect(violations).to.deep.equal([]);
    } finally {
      await page.context().close();
    }
  });

  it('opens from the development demo page, which runs under its own strict CSP', async () => {
    const { store, product } = await shop(world.deps);
    const page = await newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    try {
      await page.goto(`${world.api}/demo/widget?key=${store.embed_key}`);
      await page.locator(`button[data-matjar-theme=dark][data-matjar-product="${product.id}"]`).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect(await styleOf(page, '[role=dialog]', 'background-color')).to.equal('rgb(23, 26, 33)');
      expect(violations).to.deep.equal([]);
    } finally {
      await page.context().close();
    }
  });

  it('backs off after a 429 (1, 2, then 4 s), then tells the buyer to wait and offers to try again', async () => {
    const { store, product } = await shop(world.deps);
    const url = world.page('/busy', merchantPage(world, product, store));
    const page = await newPage();
    let calls = 0;
    await page.route(`${world.api}/api/embed/product/**`, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      calls += 1;
      if (calls > 4) return route.continue();
      return route.fulfill({
        status: 429,
        headers: {
          'Access-Control-Allow-Origin': '*',
          'Content-Type': 'application/json',
          'Retry-After': '60',
        },
        body: JSON.stringify({
          success: false,
          message: 'Too many requests. Please try again later.',
          error_code: 'RATE_LIMIT_EXCEEDED',
          retry_after: 60,
        }),
      });
    });
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      // The first try and three retries after 1, 2 and 4 s, then the buyer is told.
      await dialog
        .getByRole('alert')
        .getByText('Too many attempts. Please wait 60 seconds and try again.')
        .waitFor();
      expect(calls).to.equal(4);
      await dialog.getByRole('button', { name: 'Try again' }).click();
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect(calls).to.equal(5);
      expect(await dialog.locator('[role=alert]').textContent()).to.equal('');
    } finally {
      await page.context().close();
    }
  });
});
