import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { Store } from '../../db/models';
import { randomToken } from '../../shared/crypto';
import { createSession } from '../../shared/services/staff/sessions';
import { withPage } from '../helpers/browser';
import { createStore } from '../helpers/builders';
import { usePaymentsSuite } from '../integration/payments/support';

const PHONE_WIDTH = { width: 390, height: 844 };

/**
 * The dashboard on a 390 px phone (docs/dashboard.md, "On a phone"): the tab bar keeps the current page's
 * tab in view (it wraps; no script), and the coupons list keeps each code whole on one line with its row's
 * buttons on the screen, in English and in Arabic (right to left).
 */
describe('the dashboard at 390 px', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let session: string;
  const LONG_CODE = `RAMADANSPECIAL${randomToken(3)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X')}`;

  before(async () => {
    store = await createStore({ name: 'Narrow Store' });
    const phone = `5962${String(Date.now() % 100_000).padStart(5, '0')}`;
    const [user] = await suite.deps
      .knex('merchant_users')
      .insert({ name: 'Narrow Owner', country_code: '966', phone, e164: `966${phone}` })
      .returning('id');
    const userId = Number((user as { id: number }).id);
    await suite.deps
      .knex('store_members')
      .insert({ store_id: store.id, merchant_user_id: userId, role: 'owner' });
    session = await createSession(suite.deps.knex, userId, store.id, 'test');
    await suite.deps.knex('coupons').insert([
      { store_id: store.id, code: LONG_CODE, type: 'percentage', amount: 1500, active: true },
      { store_id: store.id, code: 'EID', type: 'fixed', amount: 500, active: true },
    ]);
  });

  async function open(page: Page, path: string): Promise<void> {
    await page
      .context()
      .addCookies([{ name: 'matjar_merchant', value: session, url: `${suite.server.url}/merchant` }]);
    const res = await page.goto(`${suite.server.url}${path}`);
    expect(res?.status(), path).to.equal(200);
  }

  /** Whether the element's box lies wholly inside the viewport (its visible part, not scrolled away). */
  const inViewport = (page: Page, selector: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((el) => {
        const r = el.getBoundingClientRect();
        return {
          left: Math.round(r.left),
          right: Math.round(r.right),
          width: el.ownerDocument.documentElement.clientWidth,
          inside:
            r.left >= 0 &&
            r.right <= el.ownerDocument.documentElement.clientWidth &&
            r.width > 0 &&
            r.height > 0,
        };
      });

  for (const lang of ['en', 'ar'] as const) {
    it(`keeps the current tab in view on pages whose tab is last in the menu (${lang})`, async () => {
      await withPage(
        async (page) => {
          for (const path of ['/merchant/fraud', '/merchant/security', '/merchant/settings']) {
            await open(page, `${path}?lang=${lang}`);
            expect(await page.locator('html').getAttribute('dir')).to.equal(lang === 'ar' ? 'rtl' : 'ltr');
            const tab = await inViewport(page, 'nav a[aria-current="page"]');
            expect(tab.inside, `${path} ${lang}: ${JSON.stringify(tab)}`).to.equal(true);
            // The bar itself does not scroll sideways (nothing of it is hidden off the screen).
            const hidden = await page.locator('nav ul').evaluate((el) => el.scrollWidth - el.clientWidth);
            expect(hidden, path).to.be.at.most(0);
            const pageOverflow = await page.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth);
            expect(pageOverflow, path).to.be.at.most(0);
          }
          // Every tab of the menu is on the screen, not only the current one.
          const all = await page.locator('nav a').evaluateAll((links) =>
            links.map((a) => {
              const r = a.getBoundingClientRect();
              return r.left >= 0 && r.right <= a.ownerDocument.documentElement.clientWidth;
            }),
          );
          expect(all.length).to.be.greaterThan(15);
          expect(all.every(Boolean)).to.equal(true);
        },
        { viewport: PHONE_WIDTH, locale: lang },
      );
    });

    it(`keeps a long coupon code on one line and each row's buttons on the screen (${lang})`, async () => {
      await withPage(
        async (page) => {
          await open(page, `/merchant/coupons?lang=${lang}`);
          const code = page.locator('[data-coupon-code]', { hasText: LONG_CODE });
          expect(await code.innerText()).to.equal(LONG_CODE);
          const lines = await code.evaluate((el) => {
            // One line of the code: the code's own font size times the page's line height (1.5).
            const lineHeight =
              el.getBoundingClientRect().height > 0
                ? 1.5 * parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).fontSize)
                : 20;
            return Math.round(el.getBoundingClientRect().height / lineHeight);
          });
          expect(lines).to.equal(1);
          const codeBox = await code.evaluate((el) => {
            const r = el.getBoundingClientRect();
            return r.left >= 0 && r.right <= el.ownerDocument.documentElement.clientWidth;
          });
          expect(codeBox).to.equal(true);
          const row = page.locator('tr', { has: code });
          for (const name of [lang === 'ar' ? 'تعديل' : 'Edit', lang === 'ar' ? 'تعطيل' : 'Disable']) {
            const control = row.locator('[data-coupon-actions] a, [data-coupon-actions] button', {
              hasText: name,
            });
            const box = await control.evaluate((el) => {
              const r = el.getBoundingClientRect();
              return { left: r.left, right: r.right, width: el.ownerDocument.documentElement.clientWidth };
            });
            expect(box.left, `${name} ${JSON.stringify(box)}`).to.be.at.least(0);
            expect(box.right, `${name} ${JSON.stringify(box)}`).to.be.at.most(box.width);
          }
          const pageOverflow = await page.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth);
          expect(pageOverflow).to.be.at.most(0);
          await page.screenshot({ path: `/tmp/coupons-${lang}-390.png`, fullPage: true });
        },
        { viewport: PHONE_WIDTH, locale: lang },
      );
    });
  }
});
