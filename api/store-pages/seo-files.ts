import type { Store } from '../../db/models';
import type { PageCategory, PageProduct } from '../../shared/services/store-pages/catalogue';
import { escapeHtml } from '../pay/html';
import type { Locale } from '../pay/i18n';
import { accentOf, clip } from './layout';

/** What search engines and link previews read besides the pages: the card image, sitemap.xml, robots.txt. */

export function cardSvg(store: Store, name: string, price: string, locale: Locale): string {
  const accent = accentOf(store);
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  const x = locale === 'ar' ? 1120 : 80;
  const anchor = locale === 'ar' ? 'end' : 'start';
  const esc = (s: string) => escapeHtml(clip(s, 60));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="630" viewBox="0 0 1200 630">
<rect width="1200" height="630" fill="${accent}"/>
<rect x="40" y="40" width="1120" height="550" rx="32" fill="#ffffff"/>
<g font-family="system-ui, 'Segoe UI', Tahoma, 'Noto Sans Arabic', sans-serif" direction="${dir}" text-anchor="${anchor}">
<text x="${x}" y="170" font-size="40" fill="#59636e">${esc(store.name)}</text>
<text x="${x}" y="320" font-size="72" font-weight="700" fill="#1f2328">${esc(name)}</text>
<text x="${x}" y="470" font-size="64" font-weight="700" fill="${accent}">${esc(price)}</text>
</g>
</svg>`;
}

export function sitemapXml(
  base: string,
  store: Store,
  products: readonly PageProduct[],
  categories: readonly PageCategory[],
): string {
  const root = `${base}/s/${store.slug}`;
  const entry = (path: string, lastmod?: string): string => {
    const alt = (['ar', 'en'] as const)
      .map(
        (l) =>
          `<xhtml:link rel="alternate" hreflang="${l}" href="${escapeHtml(`${root}${path}?lang=${l}`)}"/>`,
      )
      .join('');
    return `<url><loc>${escapeHtml(`${root}${path}`)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}${alt}</url>`;
  };
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${[
  entry(''),
  entry('/policies'),
  ...categories.map((c) => entry(`/c/${c.slug}`)),
  ...products.map((p) => entry(`/p/${p.slug}`, p.updated_at.slice(0, 10))),
].join('\n')}
</urlset>
`;
}

export function robotsTxt(base: string, store: Store): string {
  const root = `/s/${store.slug}`;
  return `User-agent: *
Allow: ${root}
Disallow: ${root}/checkout/
Disallow: ${root}/search
Sitemap: ${base}${root}/sitemap.xml
`;
}
