import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { newPage } from '../../helpers/browser';
import {
  events,
  merchantPage,
  openWidget,
  orderIdFor,
  payInPopup,
  recordEvents,
  shop,
  shownOrderId,
  startWorld,
  waitFor,
  WidgetWorld,
} from './support';

/**
 * The widget on merchant pages built to stress it, in headless Chromium: hostile CSS (a `div` rule with
 * !important, a fixed header at the highest z-index, `* { all: unset }`, shouting typography, a transformed
 * body, a right-to-left page), single-page-app habits (a double click, a body swap while open, buttons in
 * the page's own shadow roots or under an ancestor that stops clicks, a click before the script loaded),
 * errors after Pay where the buyer is looking at phone and desktop sizes, a status poll that fails for a
 * while, and the payment window: closed without paying, and closed by the widget after paying.
 */

const HOSTILE_CSS = `<style>
* { all: unset; }
head, script, style, title { display: none; }
html { display: block; text-transform: uppercase; letter-spacing: 6px; text-shadow: 2px 2px 0 red;
  font-family: "Comic Sans MS", cursive; color: rgb(0, 128, 0); font-size: 22px; }
body { display: block; transform: translateX(40px) scale(0.9); min-height: 4000px; }
div { position: relative !important; z-index: 2147483647 !important; display: block; }
.bar { position: fixed !important; top: 0; left: 0; right: 0; height: 120px; background: rgb(200, 0, 0);
  z-index: 2147483647 !important; }
button { display: inline-block; padding: 10px; }
</style>`;

/** The widget's shadow root, queried from the page. */
const inWidget = (js: string): string =>
  `(() => { const root = document.querySelector('[data-matjar-widget]').shadowRoot; ${js} })()`;

const errorBorder = 'rgb(180, 35, 24)';

async function fillGuest(page: Page, email: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.locator('[autocomplete=given-name]').fill('Sara');
  await dialog.locator('[autocomplete=family-name]').fill('Ali');
  await dialog.locator('[autocomplete=email]').fill(email);
  await dialog.locator('[autocomplete=tel-national]').fill('500009555');
}

/** Whether the element with role=alert is the focused element and lies wholly inside the viewport. */
async function alertInView(page: Page): Promise<{ focused: boolean; inView: boolean; text: string }> {
  return page.evaluate(
    inWidget(`const a = root.querySelector('[role=alert]'); const r = a.getBoundingClientRect();
      return { focused: root.activeElement === a, text: a.textContent,
        inView: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth };`),
  );
}

describe('checkout widget on hostile merchant pages in a real browser', function () {
  this.timeout(60_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  it('stays above and apart from a page with hostile CSS: top layer, no inherited typography, red invalid fields', async () => {
    const { store, product } = await shop(world.deps);
    const html = merchantPage(world, product, store, {
      extra: `${HOSTILE_CSS}<div class="bar">Sticky header</div><div><p>Some text</p></div>`,
    }).replace('<body>', '<body><div class="spacer" style="height: 150px"></div>');
    const url = world.page('/hostile', html);
    const page = await newPage({ viewport: { width: 800, height: 700 } });
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      // In the top layer: the heading and the close control are what the page shows at their place.
      const onTop = await page.evaluate(
        inWidget(`const host = root.host; const dlg = root.querySelector('dialog');
          return ['h2', '.x'].map((s) => { const r = root.querySelector(s).getBoundingClientRect();
            return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === host; })
            .concat([dlg.matches(':modal')]);`),
      );
      expect(onTop).to.deep.equal([true, true, true]);
      // The transformed body does not size it: it fits the viewport.
      const box = (await dialog.boundingBox())!;
      expect(box.width).to.be.at.most(460);
      expect(box.y).to.be.at.least(0);
      expect(box.y + box.height).to.be.at.most(700);
      // Nothing of the page's typography reaches in.
      const look = await page.evaluate(
        inWidget(`const s = getComputedStyle(root.querySelector('h2'));
          return [s.textTransform, s.letterSpacing, s.textShadow, s.fontFamily.includes('system-ui'), s.color];`),
      );
      expect(look).to.deep.equal(['none', 'normal', 'none', true, 'rgb(26, 29, 35)']);
      // A field left empty shows its red border.
      await dialog.locator('input[type=radio][value=bank]').check();
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await dialog.getByText('Please check the highlighted fields.').waitFor();
      const border = await page.evaluate(
        inWidget(`return getComputedStyle(root.querySelector('[autocomplete=given-name]')).borderTopColor;`),
      );
      expect(border).to.equal(errorBorder);
      // The page behind is inert while open; the close control can be clicked and the scroll lock is undone.
      expect(await page.evaluate(`document.querySelector('#buy').closest(':modal') === null`)).to.equal(true);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate('document.documentElement.style.overflow')).to.equal('');
    } finally {
      await page.context().close();
    }
  });

  it('lays itself out right to left on an Arabic page, an English description keeping its own direction', async () => {
    const { store, product } = await shop(world.deps);
    await world.deps
      .knex('products')
      .where({ id: product.id })
      .update({ description: 'Works in every region.' });
    const html = merchantPage(world, product, store, { lang: 'ar', extra: HOSTILE_CSS }).replace(
      '<html lang="ar">',
      '<html lang="ar" dir="rtl">',
    );
    const page = await newPage({ viewport: { width: 390, height: 760 } });
    try {
      await page.goto(world.page('/hostile-rtl', html));
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      const dirs = await page.evaluate(
        inWidget(`const d = [...root.querySelectorAll('p')].find((p) => p.textContent === 'Works in every region.');
          return [getComputedStyle(root.querySelector('dialog')).direction, d.getAttribute('dir'),
            getComputedStyle(d).direction];`),
      );
      expect(dirs).to.deep.equal(['rtl', 'auto', 'ltr']);
      const box = (await dialog.boundingBox())!;
      expect(box.x).to.be.at.least(0);
      expect(box.x + box.width).to.be.at.most(390);
    } finally {
      await page.context().close();
    }
  });

  it('survives a double click, a body swap while open, and keeps every buy button alive', async () => {
    const { store, product } = await shop(world.deps);
    const page = await newPage();
    try {
      await page.goto(world.page('/spa', merchantPage(world, product, store)));
      await recordEvents(page);
      await page.locator('#buy[aria-haspopup=dialog]').waitFor();
      // The second click of a double click lands on the backdrop: the dialog stays.
      await page.locator('#buy').dblclick();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      expect((await events(page)).map(([name]) => name)).to.deep.equal(['matjar:open']);
      // A single click on the backdrop still closes it.
      await page.mouse.click(4, 4);
      await dialog.waitFor({ state: 'detached' });

      // A Turbo-style body swap while the dialog is open: the dialog goes, the page scrolls again, the page
      // hears matjar:close although its button is gone, and the new body's button opens the dialog.
      await page.locator('#buy').click();
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      await page.evaluate(`(() => {
        const body = document.createElement('body');
        body.innerHTML = '<h1>Next page</h1><button id="buy" data-matjar-product="${product.id}" data-matjar-key="${store.embed_key}">Buy again</button>';
        document.body.replaceWith(body);
      })()`);
      await waitFor('the dialog gone with the old body', async () =>
        (await page.evaluate(`!document.querySelector('[data-matjar-widget]')`)) ? true : undefined,
      );
      expect(await page.evaluate('document.documentElement.style.overflow')).to.equal('');
      expect((await events(page)).map(([name]) => name)).to.deep.equal([
        'matjar:open',
        'matjar:close',
        'matjar:open',
        'matjar:close',
      ]);
      await page.getByRole('button', { name: 'Buy again' }).click();
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
    } finally {
      await page.context().close();
    }
  });

  it('opens from a button in the page’s shadow root, under an ancestor that stops clicks, and from a click before the script loaded', async () => {
    const { store, product } = await shop(world.deps);
    const attrs = `data-matjar-product="${product.id}" data-matjar-key="${store.embed_key}"`;
    // No script tag: the test adds it after the first click, as a slow network would.
    const html = merchantPage(world, product, store, {
      extra: `<div id="shadow-host"></div>
<div id="stopper"><button id="stopped" ${attrs}>Stopped buy</button></div>`,
    }).replace(/<script[^>]*><\/script>/, '');
    const page = await newPage();
    const productCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/embed/product/')) productCalls.push(r.url());
    });
    try {
      await page.goto(world.page('/spa-shadow', html));
      // The early-click queue of docs/widget.md, then a click while the script is still missing.
      await page.evaluate(`(() => {
        window.Matjar = window.Matjar || [];
        document.addEventListener('click', function (e) {
          var b = e.target.closest && e.target.closest('[data-matjar-product]');
          if (b && Array.isArray(window.Matjar)) { e.preventDefault(); window.Matjar.push(b); }
        }, true);
        const root = document.querySelector('#shadow-host').attachShadow({ mode: 'open' });
        root.innerHTML = '<button id="inner" ${attrs}>Shadow buy</button>';
        document.querySelector('#stopper').addEventListener('click', (e) => e.stopPropagation());
      })()`);
      await page.locator('#buy').click();
      await page.evaluate(`(() => {
        const s = document.createElement('script');
        s.src = '${world.api}/widget/v1.js';
        document.head.append(s);
      })()`);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Shadow buy' }).click();
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Stopped buy' }).click();
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      // Opened three times, the product was read three times: each opening sees the store's current payment
      // methods and stock (docs/widget.md, "Not purchasable yet").
      expect(productCalls).to.have.length(3);
    } finally {
      await page.context().close();
    }
  });

  for (const [size, viewport, failure, path] of [
    ['a phone', { width: 360, height: 640 }, 'a 503 from the payment start', 'guest/payment/initiate'],
    ['a desktop', { width: 1280, height: 720 }, 'no connection for the checkout', 'guest/checkout'],
  ] as const) {
    it(`shows a failed Pay beside the button and in view on ${size} (${failure}), and the retry works`, async () => {
      const { store, product } = await shop(world.deps);
      const page = await newPage({ viewport });
      let fail = true;
      await page.route(`${world.api}/api/embed/${path}`, async (route) => {
        if (route.request().method() !== 'POST' || !fail) return route.continue();
        if (failure.startsWith('no connection')) return route.abort('connectionrefused');
        return route.fulfill({
          status: 503,
          headers: { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json' },
          body: JSON.stringify({ success: false, message: 'Service unavailable' }),
        });
      });
      try {
        await page.goto(world.page(`/fail-${viewport.width}`, merchantPage(world, product, store)));
        await openWidget(page);
        const dialog = page.getByRole('dialog');
        await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
        await fillGuest(page, `fail${viewport.width}@example.com`);
        await dialog.locator('input[type=radio][value=bank]').check();
        await dialog.getByRole('button', { name: /^Pay / }).click();
        const words = failure.startsWith('no connection')
          ? 'We could not reach the store. Check your connection and try again.'
          : 'Something went wrong on our side. Please try again in a moment.';
        await dialog.getByRole('alert').getByText(words).waitFor();
        expect(await alertInView(page)).to.deep.equal({ focused: true, inView: true, text: words });
        // The retry is the next stop: Tab from the alert reaches Pay.
        await page.keyboard.press('Tab');
        expect(await page.evaluate(inWidget(`return root.activeElement.textContent;`))).to.match(/^Pay /);
        fail = false;
        await page.keyboard.press('Enter');
        await dialog.getByRole('heading', { name: 'Bank transfer' }).waitFor();

        if (failure.startsWith('no connection')) {
          // A status poll that fails for a while says so, and recovers.
          await page.route(`${world.api}/api/embed/payment/status/**`, (route) =>
            route.abort('connectionrefused'),
          );
          await dialog.getByText('We cannot check the payment right now. Still trying…').waitFor();
          await page.unroute(`${world.api}/api/embed/payment/status/**`);
          await dialog.getByText('Waiting for the payment to be confirmed…').waitFor();
        }
      } finally {
        await page.context().close();
      }
    });
  }

  it('offers to reopen a payment window closed before paying, and closes the window itself after paying', async () => {
    const { store, product } = await shop(world.deps);
    const page = await newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      // The merchant's test server has no favicon: that 404 is the page's, not the widget's.
      if ((m.type() === 'error' || m.type() === 'warning') && !m.location().url.endsWith('/favicon.ico')) {
        errors.push(m.text());
      }
    });
    try {
      await page.goto(world.page('/popup', merchantPage(world, product, store)));
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      await fillGuest(page, 'popup@example.com');
      await dialog.locator('input[type=radio][value=card]').check();
      let popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      const first = await popupOpened;
      await first.waitForLoadState();
      await first.close();
      await dialog
        .getByRole('alert')
        .getByText('The payment window was closed before the payment was confirmed.', { exact: false })
        .waitFor();
      await dialog.getByRole('button', { name: 'Choose another payment method' }).waitFor();

      popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('link', { name: 'Open the payment page' }).click();
      const second = await popupOpened;
      const closed = new Promise<void>((resolve) => second.once('close', () => resolve()));
      await payInPopup(second);
      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, product.id)).to.deep.equal([shown]);
      await closed;
      expect(second.isClosed()).to.equal(true);
      expect(errors).to.deep.equal([]);
    } finally {
      await page.context().close();
    }
  });
});
