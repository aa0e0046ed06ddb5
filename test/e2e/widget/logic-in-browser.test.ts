import { expect } from 'chai';
import path from 'node:path';
import { withPage } from '../../helpers/browser';

/**
 * The widget's DOM-free logic (pricing.ts, state.ts, cache.ts; unit-tested in test/unit/widget/) once more
 * in Chromium, where it runs for buyers: currency digits and number formats come from the browser's own
 * Intl data, which need not match Node's.
 */

const SRC = path.resolve(__dirname, '../../../widget/src');

async function bundle(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    stdin: {
      contents: `export * from './pricing'; export * from './state'; export * from './cache';`,
      resolveDir: SRC,
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    globalName: 'logic',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

describe('widget logic in a real browser', function () {
  this.timeout(60_000);

  it('prices in the currency’s own minor units, formats in both languages, and moves through the steps', async () => {
    const code = await bundle();
    const seen = await withPage(async (page) => {
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ content: code });
      return page.evaluate(`(() => {
        const product = { price: { actual: 1.125 }, subscription_plans: [], fields: [] };
        const s = logic.initialState();
        const moves = ['started', 'loaded', 'started', 'back', 'started', 'paid', 'close', 'loaded']
          .map((e) => logic.move(s, e) ? s.step : null);
        return {
          digits: ['KWD', 'SAR', 'JPY', 'BHD'].map(logic.currencyDigits),
          estimate: logic.estimate(product, { planId: null, options: {}, quantity: 2,
            coupon: { type: 'fixed', amount: 0.5 } }, 3),
          en: logic.formatMoney(1750, 'KWD', 'en', 3),
          ar: logic.formatMoney(5550, 'SAR', 'ar'),
          arIndic: logic.formatMoney(5550, 'SAR', 'ar', 2, 'arabic_indic'),
          moves,
        };
      })()`);
    });
    expect(seen).to.deep.include({
      digits: [3, 2, 0, 3],
      estimate: { subtotal: 2250, discount: 500, total: 1750 },
      moves: [null, 'form', 'paying', 'form', 'paying', 'done', 'closed', null],
    });
    const { en, ar, arIndic } = seen as { en: string; ar: string; arIndic: string };
    expect(en).to.match(/KWD\s?1\.750/);
    // Arabic in Western digits by default; Arabic-Indic only when the store chose them.
    expect(ar).to.contain('55.50').and.not.match(/[٠-٩]/);
    expect(arIndic).to.contain('٥٥٫٥٠');
  });
});
