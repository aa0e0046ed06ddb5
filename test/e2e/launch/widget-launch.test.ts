import { expect } from 'chai';
import { newPage } from '../../helpers/browser';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { merchantPage, openWidget, startWorld, type WidgetWorld } from '../widget/support';

/**
 * The widget in a new store (docs/widget.md, "Not purchasable yet"): it says a product cannot be bought
 * before the buyer types anything, reads the store's payment methods again on every opening, and keeps
 * what the buyer typed when the dialog is closed and opened again.
 */
describe('checkout widget in a store getting ready', function () {
  this.timeout(60_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  it('says “not purchasable yet” up front, sees the card switched on when reopened, and keeps typed details', async () => {
    const store = await createStore({ name: 'Getting Ready' });
    const product = await createProduct(store, { name: 'Ready Key', type: 'code', price_minor: 3_000 });
    await world.deps
      .knex('product_codes')
      .insert([{ product_id: product.id, code: `READY-${product.id}-1` }]);
    const page = await newPage({ viewport: { width: 390, height: 844 } });
    const productCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/embed/product/')) productCalls.push(r.url());
    });
    try {
      await page.goto(world.page('/ready', merchantPage(world, product, store)));
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      const notice = dialog.locator('[data-not-purchasable]');
      await notice.waitFor();
      expect(await notice.getAttribute('data-not-purchasable')).to.equal('no_payment_method');
      expect(await notice.innerText())
        .to.contain('This product cannot be bought yet')
        .and.to.contain('has not switched on a payment method');
      // Nothing to type.
      expect(await dialog.locator('input').count()).to.equal(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // The merchant switches the sandbox card on; the page is not reloaded.
      const token = await merchantToken(store);
      const on = await fetch(`${world.api}/shawarma/store`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ payment_methods: { card: { provider: 'sandbox' } } }),
      });
      expect(on.status).to.equal(200);

      await openWidget(page);
      await dialog.getByRole('heading', { name: 'Ready Key' }).waitFor();
      await dialog.locator('input[type=radio][value=card]').waitFor();
      await dialog.locator('[autocomplete=given-name]').fill('Reem');
      await dialog.locator('[autocomplete=family-name]').fill('Kamal');
      await dialog.locator('[autocomplete=email]').fill('reem@i40.test');
      await dialog.locator('[autocomplete=tel-national]').fill('0594000501');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Opened again: what was typed is still there.
      await openWidget(page);
      await dialog.locator('input[type=radio][value=card]').waitFor();
      expect(await dialog.locator('[autocomplete=given-name]').inputValue()).to.equal('Reem');
      expect(await dialog.locator('[autocomplete=family-name]').inputValue()).to.equal('Kamal');
      expect(await dialog.locator('[autocomplete=email]').inputValue()).to.equal('reem@i40.test');
      expect(await dialog.locator('[autocomplete=tel-national]').inputValue()).to.equal('059 400 0501');
      // Each opening read the product (and the store's payment methods) again.
      expect(productCalls).to.have.length(3);

      // A reload forgets it (kept in memory only).
      await page.reload();
      await openWidget(page);
      await dialog.locator('input[type=radio][value=card]').waitFor();
      expect(await dialog.locator('[autocomplete=given-name]').inputValue()).to.equal('');
    } finally {
      await page.context().close();
    }
  });
});
