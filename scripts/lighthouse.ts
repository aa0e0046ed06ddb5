/**
 * `npm run lighthouse [-- <product page address>]`: Lighthouse's four scores (performance, accessibility,
 * best practices, SEO) of a store's product page in Arabic and in English, at Lighthouse's mobile settings
 * (a phone screen, throttled network and CPU), with Debian's Chromium (/usr/bin/chromium, or
 * CHROMIUM_PATH). It runs against a platform that is already running (`npm start`): the address given,
 * else the first product page in the sitemap of the store LIGHTHOUSE_STORE (default `demo`, the demo
 * store) at PUBLIC_BASE_URL (default http://localhost:3000). Exits 1 when a score is below
 * LIGHTHOUSE_MIN (default 95). docs/store-pages.md.
 */
import { launch } from 'chrome-launcher';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

async function productPage(): Promise<string> {
  const given = process.argv.slice(2).find((a) => /^https?:\/\//.test(a));
  if (given) return given.replace(/[?#].*$/, '');
  const base = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  const store = process.env.LIGHTHOUSE_STORE ?? 'demo';
  const res = await fetch(`${base}/s/${store}/sitemap.xml`);
  if (!res.ok)
    throw new Error(`${base}/s/${store}/sitemap.xml answered ${res.status}: is the platform running?`);
  const match = /<loc>([^<]+\/p\/[^<]+)<\/loc>/.exec(await res.text());
  if (!match) throw new Error(`the store ${store} has no product page in its sitemap`);
  return match[1];
}

export async function main(): Promise<number> {
  const page = await productPage();
  const min = Number(process.env.LIGHTHOUSE_MIN ?? 95);
  // Lighthouse is an ES module; tsx runs this file as CommonJS.
  const { default: lighthouse } = (await import('lighthouse')) as typeof import('lighthouse');
  const chrome = await launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-dev-shm-usage'],
  });
  let failed = false;
  try {
    for (const lang of ['ar', 'en']) {
      const url = `${page}?lang=${lang}`;
      // The default configuration is Lighthouse's mobile one (Moto G Power screen, slow 4G, 4x CPU).
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
      });
      if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
      const scores = CATEGORIES.map((c) => Math.round((result.lhr.categories[c]?.score ?? 0) * 100));
      failed ||= scores.some((s) => s < min);
      console.log(`${url}\n  ${CATEGORIES.map((c, i) => `${c} ${scores[i]}`).join(', ')}`);
      for (const c of CATEGORIES) {
        const category = result.lhr.categories[c];
        if (!category || (category.score ?? 0) >= 1) continue;
        const lost = category.auditRefs
          .map((ref) => result.lhr.audits[ref.id])
          .filter((a) => a && a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative')
          .map((a) => a.id);
        if (lost.length) console.log(`    ${c}: ${lost.join(', ')}`);
        if (process.env.LIGHTHOUSE_DETAILS) {
          for (const id of lost)
            console.log(JSON.stringify(result.lhr.audits[id]?.details ?? {}).slice(0, 600));
        }
      }
    }
  } finally {
    chrome.kill();
  }
  return failed ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
