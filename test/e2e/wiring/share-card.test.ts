import { expect } from 'chai';
import http from 'node:http';
import { createApp } from '../../../api/app';
import type { Deps } from '../../../shared/deps';
import { createSession } from '../../../shared/services/staff/sessions';
import { loadFixture } from '../../../shared/services/seed';
import { withPage } from '../../helpers/browser';
import { isolatedDeps } from '../../helpers/deps';
import { waitFor } from '../../integration/payments/support';
import { freePort } from '../support';

/**
 * The dashboard product page's one "Share and sell" card (docs/store-pages.md; docs/dashboard.md, "Launch
 * checklist"): the buy link, its QR code and the widget snippet together, once; copying the buy link ticks
 * the launch checklist's "share" step as copying the snippet does, with the script (clipboard and a fetch
 * post) and without it (the form posts and comes back to the card).
 */
describe('dashboard: one share card whose Copy buttons tick the launch checklist', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: http.Server;
  let base: string;
  let storeId: number;
  let productId: number;
  let session: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const m = await loadFixture(deps, {
      stores: [
        {
          ref: 'w42-share',
          slug: 'w42-share',
          name: 'Share w42',
          currency: 'SAR',
          products: [{ ref: 'book', name: 'Book', slug: 'book', type: 'product', price: '15.00' }],
        },
      ],
    });
    storeId = m.stores['w42-share']!.id;
    productId = m.stores['w42-share']!.products.book!.id;
    const [user] = await deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: '594800201', e164: '966594800201' })
      .returning('id');
    const userId = (user as { id: number }).id;
    await deps.knex('store_members').insert({ store_id: storeId, merchant_user_id: userId, role: 'owner' });
    session = await createSession(deps.knex, userId, storeId, 'test');
  });

  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const sharedAt = async (): Promise<Date | null> =>
    ((await deps.knex('stores').where('id', storeId).first('widget_snippet_copied_at'))
      .widget_snippet_copied_at as Date | null) ?? null;

  const shareStep = (html: string): string | undefined =>
    /data-step="share" data-done="(true|false)"/.exec(html)?.[1];

  async function homeShareStep(): Promise<string | undefined> {
    const home = await fetch(`${base}/merchant?lang=en`, {
      headers: { cookie: `matjar_merchant=${session}` },
    });
    return shareStep(await home.text());
  }

  it('shows the link, QR code and snippet in one card; Copy link ticks "share" (script on)', async () => {
    expect(await sharedAt()).to.equal(null);
    expect(await homeShareStep()).to.equal('false');
    const seen = await withPage(
      async (page) => {
        await page
          .context()
          .addCookies([{ name: 'matjar_merchant', value: session, url: `${base}/merchant` }]);
        await page.goto(`${base}/merchant/products/${productId}?lang=en`);
        const card = page.locator('[data-share]');
        const parts = {
          cards: await card.count(),
          link: await card.locator('#share-link').count(),
          qr: await card.locator('[data-qr]').count(),
          snippet: await card.locator('#product-snippet').count(),
          scripts: await page.locator('script[src="/merchant/assets/launch.js"]').count(),
        };
        await page.getByRole('button', { name: 'Copy link' }).click();
        await card
          .locator('form[data-copy-form="share-link"] [data-copy-status]')
          .filter({ hasText: 'Copied' })
          .waitFor();
        return {
          parts,
          url: page.url(),
          clipboard: await page.evaluate<string>('navigator.clipboard.readText()'),
        };
      },
      { locale: 'en-US', permissions: ['clipboard-read', 'clipboard-write'] },
    );
    expect(seen.parts).to.deep.equal({ cards: 1, link: 1, qr: 1, snippet: 1, scripts: 1 });
    expect(seen.clipboard).to.equal(`${base}/s/w42-share/p/book`);
    // The page stayed where it was (the script posted by fetch).
    expect(seen.url).to.equal(`${base}/merchant/products/${productId}?lang=en`);
    await waitFor('the copy noted', async () => (await sharedAt()) ?? undefined);
    expect(await homeShareStep()).to.equal('true');
  });

  it('ticks "share" from Copy link without the script: the form posts and comes back to the card', async () => {
    await deps.knex('stores').where('id', storeId).update({ widget_snippet_copied_at: null });
    expect(await homeShareStep()).to.equal('false');
    const url = await withPage(
      async (page) => {
        await page
          .context()
          .addCookies([{ name: 'matjar_merchant', value: session, url: `${base}/merchant` }]);
        await page.goto(`${base}/merchant/products/${productId}?lang=ar`);
        await page.getByRole('button', { name: 'نسخ الرابط' }).click();
        await page.waitForURL(/#share$/);
        return page.url();
      },
      { javaScriptEnabled: false },
    );
    expect(url).to.equal(`${base}/merchant/products/${productId}#share`);
    expect(await sharedAt()).to.be.an.instanceOf(Date);
    expect(await homeShareStep()).to.equal('true');
  });
});
