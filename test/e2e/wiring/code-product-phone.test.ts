import { expect } from 'chai';
import http from 'node:http';
import { createApp } from '../../../api/app';
import type { Deps } from '../../../shared/deps';
import { createSession } from '../../../shared/services/staff/sessions';
import { loadFixture } from '../../../shared/services/seed';
import { withPage } from '../../helpers/browser';
import { isolatedDeps } from '../../helpers/deps';
import { freePort } from '../support';

/**
 * A merchant's first code product on a 390 px phone in Arabic (docs/dashboard.md, "The product form by
 * type", "A product's keys"): the type select shows the keys section and hides the stock one (the form's
 * script), the product is saved with its keys, more keys are added, the page says how many keys are left,
 * the keys are listed masked, and the share card's Copy button puts the product's link on the clipboard.
 */
describe('dashboard on a phone in Arabic: a new code product, its keys left and its link copied', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: http.Server;
  let base: string;
  let storeId: number;
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
          ref: 't-product-phone',
          slug: 't-product-phone',
          name: 'متجر المفاتيح',
          currency: 'SAR',
          products: [],
        },
      ],
    });
    storeId = m.stores['t-product-phone']!.id;
    const [user] = await deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: '596100501', e164: '966596100501' })
      .returning('id');
    const userId = (user as { id: number }).id;
    await deps.knex('store_members').insert({ store_id: storeId, merchant_user_id: userId, role: 'owner' });
    session = await createSession(deps.knex, userId, storeId, 'test');
  });

  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('creates the product by type, adds keys, shows the keys left and copies the link (390 px, Arabic)', async () => {
    const seen = await withPage(
      async (page) => {
        await page
          .context()
          .addCookies([{ name: 'matjar_merchant', value: session, url: `${base}/merchant` }]);
        await page.goto(`${base}/merchant/products/new?lang=ar`);
        const stock = page.locator('[data-section="stock"]');
        const keys = page.locator('[data-section="keys"]');
        // A digital product first (the select's default): the script hides the keys section.
        const before = { stock: await stock.isVisible(), keys: await keys.isVisible() };
        await page.getByLabel('الاسم', { exact: true }).fill('بطاقة لعبة');
        await page.getByLabel('النوع', { exact: true }).selectOption('code');
        const after = { stock: await stock.isVisible(), keys: await keys.isVisible() };
        await page.getByLabel('السعر', { exact: true }).fill('25.00');
        await page.getByLabel('إضافة مفاتيح').fill('GAME-AAAA-0001\nGAME-BBBB-0002');
        await page.getByRole('button', { name: 'حفظ', exact: true }).click();
        await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
        const firstLeft = await page.locator('[data-keys-left]').textContent();
        // More keys on the product's own page.
        await page.getByLabel('إضافة مفاتيح').fill('GAME-CCCC-0003\nGAME-DDDD-0004\nGAME-EEEE-0005');
        await page.getByRole('button', { name: 'حفظ', exact: true }).click();
        await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
        const left = await page.locator('[data-keys-left]').textContent();
        const masked = await page.locator('[data-keys-card] td.mono').allTextContents();
        const deletes = await page.locator('[data-keys-card] button', { hasText: 'حذف' }).count();
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        await page.getByRole('button', { name: 'نسخ الرابط' }).click();
        await page
          .locator('form[data-copy-form="share-link"] [data-copy-status]')
          .filter({ hasText: 'تم النسخ' })
          .waitFor();
        return {
          before,
          after,
          firstLeft,
          left,
          masked,
          deletes,
          overflow,
          dir: await page.locator('html').getAttribute('dir'),
          clipboard: await page.evaluate<string>('navigator.clipboard.readText()'),
          productId: Number(/products\/(\d+)/.exec(page.url())![1]),
        };
      },
      {
        locale: 'ar',
        viewport: { width: 390, height: 844 },
        permissions: ['clipboard-read', 'clipboard-write'],
      },
    );
    expect(seen.before).to.deep.equal({ stock: true, keys: false });
    expect(seen.after).to.deep.equal({ stock: false, keys: true });
    expect(seen.firstLeft).to.equal('المتبقي 2 من الأكواد');
    expect(seen.left).to.equal('المتبقي 5 من الأكواد');
    expect(seen.masked.sort()).to.deep.equal(['••••0001', '••••0002', '••••0003', '••••0004', '••••0005']);
    expect(seen.deletes).to.equal(5);
    expect(seen.overflow).to.be.at.most(0);
    expect(seen.dir).to.equal('rtl');
    const product = await deps.knex('products').where('id', seen.productId).first('slug', 'type', 'stock');
    expect(product).to.include({ type: 'code', stock: null });
    expect(seen.clipboard).to.equal(`${base}/s/t-product-phone/p/${product.slug}`);
    expect(await deps.knex('product_codes').where('product_id', seen.productId)).to.have.length(5);
  });
});
