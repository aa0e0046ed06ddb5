import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Product } from '../../db/models';
import { createSession } from '../../shared/services/staff/sessions';
import { newPage, withPage } from '../helpers/browser';
import {
  merchantPage,
  openWidget,
  orderIdFor,
  payInPopup,
  shop,
  shownOrderId,
  startWorld,
  waitFor,
  WidgetWorld,
} from './widget/support';

/**
 * The catalogue side of the dashboard end to end: a merchant makes a code product through the product
 * form, uploads its keys as a CSV file (the page's script sends them in parts and moves the progress
 * bar), and a buyer then buys it through the widget on another origin and gets one of those keys.
 */
describe('merchant dashboard: a code product with a CSV of keys, sold through the widget', function () {
  this.timeout(90_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  it('creates the product, uploads 1,200 keys with 2 already there and 1 twice, and the widget sells one', async () => {
    const { store } = await shop(world.deps);
    const [user] = await world.deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: '500000901', e164: '966500000901' })
      .returning('id');
    const userId = (user as { id: number }).id;
    await world.deps
      .knex('store_members')
      .insert({ store_id: store.id, merchant_user_id: userId, role: 'owner' });
    const token = await createSession(world.deps.knex, userId, store.id, 'test');

    const keys = Array.from({ length: 1_200 }, (_, i) => `CSV-${store.id}-${String(i).padStart(4, '0')}`);
    // A header, two keys pasted before, one key twice, a second column the upload ignores.
    const csv = ['code,note', ...keys.map((k) => `${k},batch 7`), `${keys[5]},again`].join('\r\n');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'keys-')), 'keys.csv');
    fs.writeFileSync(file, csv);

    const seen = await withPage(async (page) => {
      await page
        .context()
        .addCookies([{ name: 'matjar_merchant', value: token, url: `${world.api}/merchant` }]);
      await page.goto(`${world.api}/merchant/products/new?lang=en`);
      await page.getByLabel('Name', { exact: true }).fill('Game key CSV');
      await page.getByLabel('Type').selectOption('code');
      await page.getByLabel('Price', { exact: true }).fill('30.00');
      await page.getByLabel('Add keys').fill(`${keys[0]}\n${keys[1]}`);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/\/merchant\/products\/\d+\?saved=1/);
      const productId = Number(/products\/(\d+)/.exec(page.url())![1]);
      await page.getByRole('link', { name: 'Upload keys (CSV file or paste)' }).click();
      await page.getByLabel('CSV file of keys').setInputFiles(file);
      await page.getByRole('button', { name: 'Add keys' }).click();
      const result = page.locator('[data-keys-result]');
      // The script sends the 1,204 lines in parts of 500: the bar ends at 3 of 3.
      await page.locator('#keys-progress[max="3"][value="3"]').waitFor({ timeout: 30_000 });
      return {
        productId,
        result: await result.innerText(),
        available: await page.locator('[data-available]').innerText(),
      };
    });
    expect(seen.result).to.equal(
      '1198 added, 3 skipped (the product already had them or they were sent twice).',
    );
    expect(seen.available).to.equal('1200 keys in stock');

    const page = await newPage();
    try {
      await page.goto(world.page('/csv-keys', merchantPage(world, { id: seen.productId } as Product, store)));
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Game key CSV' }).waitFor();
      await dialog.locator('[autocomplete=given-name]').fill('Huda');
      await dialog.locator('[autocomplete=family-name]').fill('Omar');
      await dialog.locator('[autocomplete=email]').fill('huda@example.com');
      await dialog.locator('[autocomplete=tel-national]').fill('0500009444');
      await dialog.locator('input[type=radio][value=card]').check();
      const popupOpened = page.context().waitForEvent('page');
      await dialog.getByRole('button', { name: /^Pay / }).click();
      await payInPopup(await popupOpened);
      const shown = await shownOrderId(page);
      expect(await orderIdFor(world.deps, seen.productId)).to.deep.equal([shown]);
    } finally {
      await page.context().close();
    }
    const sold = await waitFor('the key sold to the order', async () => {
      const row = await world.deps
        .knex('product_codes')
        .where({ product_id: seen.productId, status: 'sold' })
        .first('code');
      return row ?? undefined;
    });
    expect(keys).to.include(sold.code);
  });
});
