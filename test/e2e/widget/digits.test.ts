import { expect } from 'chai';
import { newPage } from '../../helpers/browser';
import { merchantPage, openWidget, shop, startWorld, WidgetWorld } from './support';

const ARABIC_INDIC = /[\u0660-\u0669]/;

/**
 * The widget in Arabic writes amounts with Western digits (0-9) unless the store chose Arabic-Indic on its
 * preferences page (docs/widget.md, "Digits"): it reads the choice from the Embed product answer.
 */
describe('checkout widget digits in a real browser', function () {
  this.timeout(90_000);
  let world: WidgetWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function dialogText(storeDigits: 'western' | 'arabic_indic' | null): Promise<string> {
    const { store, product } = await shop(world.deps, 12_345);
    if (storeDigits) await world.deps.knex('stores').where({ id: store.id }).update({ digits: storeDigits });
    const url = world.page(`/digits-${store.id}`, merchantPage(world, product, store, { lang: 'ar' }));
    // The browser itself asks for Arabic: `ar` alone would give Arabic-Indic digits in Chromium.
    const page = await newPage({ viewport: { width: 390, height: 900 }, locale: 'ar-SA' });
    try {
      await page.goto(url);
      await openWidget(page);
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('heading', { name: 'Steam Wallet 50' }).waitFor();
      await dialog.getByRole('button', { name: /^ادفع/ }).waitFor();
      return await dialog.innerText();
    } finally {
      await page.context().close();
    }
  }

  it('shows Western digits by default: the price is 123.45 and no Arabic-Indic digit appears', async () => {
    const text = await dialogText(null);
    expect(text).to.contain('123.45');
    expect(text).to.not.match(ARABIC_INDIC);
  });

  it('shows Arabic-Indic digits when the store chose them: ١٢٣٫٤٥', async () => {
    const text = await dialogText('arabic_indic');
    expect(text).to.match(/١٢٣٫٤٥/);
    expect(text).to.not.contain('123.45');
  });
});
