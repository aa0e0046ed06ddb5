import type { Store } from '../../db/models';
import type { PageCategory, PageProduct } from '../../shared/services/store-pages/catalogue';
import { escapeHtml } from '../pay/html';
import { formatAmount, type Locale, type Reading } from '../pay/i18n';
import { PAGE_STRINGS, pick, type PageStrings } from './i18n';

/**
 * The store pages' HTML (docs/store-pages.md): server-rendered, no script at all (every action is a link
 * or a form), one inline style sheet (no request before first paint), Arabic right to left and English.
 * Every text from the merchant or the buyer goes through escapeHtml; JSON-LD through jsonLd(). This file:
 * the layout (head with the SEO fields, header, footer) and the parts several pages share.
 */

export interface PageContext {
  store: Store;
  locale: Locale;
  /** PUBLIC_BASE_URL without a trailing slash. */
  base: string;
  /** The page's path under the store (`''`, `/p/ebook`, `/search`...), for canonical and hreflang. */
  path: string;
  /** Extra query kept in canonical/hreflang addresses (search's `q`). */
  query?: Record<string, string>;
}

export interface Seo {
  title: string;
  description: string;
  image: string | null;
  type: 'website' | 'product';
  jsonLd?: object;
  noindex?: boolean;
}

const storeRoot = (store: Store): string => `/s/${store.slug}`;

/** The page's address in `locale` (absolute): every language has its own, which search engines index. */
export function pageUrl(pc: PageContext, locale: Locale | null): string {
  const query = new URLSearchParams(pc.query ?? {});
  if (locale) query.set('lang', locale);
  const qs = query.toString();
  return `${pc.base}${storeRoot(pc.store)}${pc.path}${qs ? `?${qs}` : ''}`;
}

/** A link inside the store in the page's language. */
export function link(pc: PageContext, path: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...query, lang: pc.locale });
  return `${storeRoot(pc.store)}${path}?${q.toString()}`;
}

/** JSON for a `<script type="application/ld+json">` block: no `<` can close the element early. */
export function jsonLd(value: object): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

export const clip = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
};

export function accentOf(store: Store): string {
  return store.accent_color && /^#[0-9a-f]{6}$/i.test(store.accent_color) ? store.accent_color : '#0b6bcb';
}

const STYLE = `*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Tahoma,"Noto Sans Arabic","Noto Naskh Arabic",sans-serif;color:#1f2328;background:#f6f7f9;line-height:1.55}
a{color:var(--accent)}
.wrap{max-width:68rem;margin:0 auto;padding:0 1rem}
.top{background:#fff;border-bottom:1px solid #e3e6ea}
.top .wrap{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;justify-content:space-between;padding-block:.75rem}
.brand{display:flex;align-items:center;gap:.6rem;color:#1f2328;text-decoration:none;font-weight:700;font-size:1.15rem}
.brand img{border-radius:8px}
.nav{display:flex;gap:1rem;align-items:center;font-size:.95rem}
.search{display:flex;gap:.4rem;flex:1 1 16rem;max-width:26rem}
.search input{flex:1;min-width:0}
input,select,textarea{font:inherit;padding:.55rem .7rem;border:1px solid #8c959f;border-radius:8px;background:#fff;color:inherit;width:100%}
input[type=radio],input[type=checkbox]{width:auto}
input[type=color]{width:4rem;height:2.6rem;padding:.2rem}
button,.button{font:inherit;display:inline-block;border:0;border-radius:8px;padding:.7rem 1.2rem;background:var(--accent);color:#fff;text-decoration:none;cursor:pointer;font-weight:600;text-align:center}
.search button{padding:.55rem .9rem}
h1{font-size:1.6rem;margin:1.2rem 0 .5rem}
h2{font-size:1.2rem;margin:1.5rem 0 .6rem}
.muted{color:#59636e}
.chips{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:0}
.chips a{display:inline-block;padding:.35rem .8rem;border-radius:999px;background:#fff;border:1px solid #d0d7de;text-decoration:none;color:#1f2328}
.grid{list-style:none;padding:0;margin:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr))}
.card{background:#fff;border-radius:12px;overflow:hidden;border:1px solid #e3e6ea;height:100%}
.card a{display:block;color:inherit;text-decoration:none;height:100%}
.card .body{padding:.75rem 1rem 1rem}
.card h3{font-size:1rem;margin:0 0 .35rem}
.thumb{display:block;width:100%;aspect-ratio:4/3;object-fit:cover;background:#eef1f4}
.ph{display:flex;align-items:center;justify-content:center;font-size:2.2rem;font-weight:700;color:#fff;background:var(--accent);aspect-ratio:4/3}
.price{font-weight:700;unicode-bidi:isolate}
.was{color:#59636e;text-decoration:line-through;font-weight:400;margin-inline-start:.4rem}
.badge{display:inline-block;font-size:.8rem;padding:.1rem .5rem;border-radius:999px;background:#e7f5ec;color:#116329;margin-top:.35rem}
.badge.out{background:#fdecea;color:#a40e26}
.badge.sale{background:#fff4d6;color:#7a4d00}
.product{display:grid;gap:1.5rem;grid-template-columns:minmax(0,1fr)}
@media(min-width:48rem){.product{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}
.panel{background:#fff;border:1px solid #e3e6ea;border-radius:12px;padding:1.25rem}
.hero{width:100%;height:auto;border-radius:12px;background:#eef1f4;display:block}
.ph.hero{display:flex;background:var(--accent);font-size:4rem}
.text{white-space:pre-line}
.reviews{list-style:none;padding:0;margin:0}
.reviews li{border-top:1px solid #e3e6ea;padding:.75rem 0}
.stars{color:#7a4d00;letter-spacing:.1rem}
.ok{color:#116329;font-size:.85rem;margin-inline-start:.5rem}
.field{margin:0 0 1rem}
.field label,.legend{display:block;font-weight:600;margin-bottom:.3rem}
fieldset{border:0;padding:0;margin:0 0 1rem}
.choice{display:flex;gap:.5rem;align-items:center;padding:.55rem .7rem;border:1px solid #d0d7de;border-radius:8px;margin-bottom:.4rem;background:#fff}
.row{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr))}
.error{color:#a40e26;font-size:.9rem;margin:.25rem 0 0}
.alert{background:#fdecea;color:#a40e26;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
.hint{color:#59636e;font-size:.85rem;margin:.25rem 0 0}
.ltr{direction:ltr;unicode-bidi:isolate}
footer{margin:3rem 0 2rem;color:#59636e;font-size:.9rem}
footer .wrap{display:flex;gap:1rem;flex-wrap:wrap;justify-content:space-between}
.pager{margin:1.5rem 0}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}`;

export function layout(pc: PageContext, seo: Seo, body: string): string {
  const t = PAGE_STRINGS[pc.locale];
  const other: Locale = pc.locale === 'ar' ? 'en' : 'ar';
  const store = pc.store;
  const canonical = pageUrl(pc, pc.locale);
  const image = seo.image
    ? `<meta property="og:image" content="${escapeHtml(seo.image)}">
<meta name="twitter:image" content="${escapeHtml(seo.image)}">`
    : '';
  const ld = seo.jsonLd ? `<script type="application/ld+json">${jsonLd(seo.jsonLd)}</script>` : '';
  const logo = store.logo_url
    ? `<img src="${escapeHtml(store.logo_url)}" alt="" width="36" height="36">`
    : '';
  const q = pc.query?.q ?? '';
  return `<!doctype html>
<html lang="${pc.locale}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(seo.title)}</title>
<meta name="description" content="${escapeHtml(seo.description)}">
${seo.noindex ? '<meta name="robots" content="noindex">' : ''}
<link rel="canonical" href="${escapeHtml(canonical)}">
<link rel="alternate" hreflang="${pc.locale}" href="${escapeHtml(canonical)}">
<link rel="alternate" hreflang="${other}" href="${escapeHtml(pageUrl(pc, other))}">
<link rel="alternate" hreflang="x-default" href="${escapeHtml(pageUrl(pc, null))}">
<meta property="og:type" content="${seo.type}">
<meta property="og:site_name" content="${escapeHtml(store.name)}">
<meta property="og:title" content="${escapeHtml(seo.title)}">
<meta property="og:description" content="${escapeHtml(seo.description)}">
<meta property="og:url" content="${escapeHtml(canonical)}">
<meta property="og:locale" content="${pc.locale === 'ar' ? 'ar_SA' : 'en_US'}">
<meta name="twitter:card" content="${seo.image ? 'summary_large_image' : 'summary'}">
<meta name="twitter:title" content="${escapeHtml(seo.title)}">
<meta name="twitter:description" content="${escapeHtml(seo.description)}">
${image}
<meta name="theme-color" content="${accentOf(store)}">
<link rel="icon" href="${escapeHtml(store.logo_url ?? 'data:,')}">
<style>:root{--accent:${accentOf(store)}}
${STYLE}</style>
${ld}
</head>
<body>
<header class="top"><div class="wrap">
<a class="brand" href="${escapeHtml(link(pc, ''))}">${logo}<bdi>${escapeHtml(store.name)}</bdi></a>
<form class="search" role="search" method="get" action="${escapeHtml(`${storeRoot(store)}/search`)}">
<input type="hidden" name="lang" value="${pc.locale}">
<label for="q" class="muted" hidden>${escapeHtml(t.searchLabel)}</label>
<input id="q" type="search" name="q" value="${escapeHtml(q)}" aria-label="${escapeHtml(t.searchLabel)}" maxlength="100">
<button type="submit">${escapeHtml(t.search)}</button>
</form>
<nav class="nav" aria-label="${escapeHtml(t.home)}">
<a href="${escapeHtml(link(pc, '/policies'))}">${escapeHtml(t.policies)}</a>
<a href="${escapeHtml(pageUrl({ ...pc, base: '' }, other))}" hreflang="${other}" lang="${other}">${escapeHtml(t.otherLanguage)}</a>
</nav>
</div></header>
<main class="wrap">
${body}
</main>
<footer><div class="wrap"><span><bdi>${escapeHtml(store.name)}</bdi></span><span>${escapeHtml(t.poweredBy)}</span></div></footer>
</body>
</html>`;
}

/** How the page writes numbers: its language and, in Arabic, the store's digits (`stores.digits`). */
export const reading = (pc: PageContext): Reading => ({
  locale: pc.locale,
  digits: pc.store.digits === 'arabic_indic' ? 'arabic_indic' : 'western',
});

/** Price, list price struck through when a sale price applies. */
export function priceHtml(
  p: Pick<PageProduct, 'price_minor' | 'sale_price_minor'>,
  currency: string,
  r: Reading,
) {
  const locale = r.locale;
  const actual = p.sale_price_minor ?? p.price_minor;
  const was =
    p.sale_price_minor !== null && p.sale_price_minor < p.price_minor
      ? `<s class="was"><span class="muted" hidden>${escapeHtml(PAGE_STRINGS[locale].was)}</span>${escapeHtml(formatAmount(p.price_minor, currency, r))}</s>`
      : '';
  return `<span class="price" data-price>${escapeHtml(formatAmount(actual, currency, r))}</span>${was}`;
}

export function stockBadge(stock: number | null, t: PageStrings): string {
  if (stock === null) return `<span class="badge" data-stock="in">${escapeHtml(t.inStock)}</span>`;
  if (stock <= 0) return `<span class="badge out" data-stock="out">${escapeHtml(t.soldOut)}</span>`;
  if (stock <= 5) return `<span class="badge" data-stock="low">${escapeHtml(t.fewLeft(stock))}</span>`;
  return `<span class="badge" data-stock="in">${escapeHtml(t.inStock)}</span>`;
}

export function initial(name: string): string {
  return escapeHtml(Array.from(name.trim())[0] ?? '•');
}

export function productCards(pc: PageContext, products: readonly PageProduct[], eager = 4): string {
  const t = PAGE_STRINGS[pc.locale];
  if (products.length === 0) return '';
  return `<ul class="grid">${products
    .map((p, i) => {
      const name = pick(pc.locale, p.name, p.name_ar);
      const img = p.image_url
        ? `<img class="thumb" src="${escapeHtml(p.image_url)}" alt="" width="400" height="300"${i >= eager ? ' loading="lazy"' : ''} decoding="async">`
        : `<span class="ph" aria-hidden="true">${initial(name)}</span>`;
      const sale =
        p.sale_price_minor !== null && p.sale_price_minor < p.price_minor
          ? ` <span class="badge sale">${escapeHtml(t.onSale)}</span>`
          : '';
      return `<li class="card" data-product-id="${p.id}"><a href="${escapeHtml(link(pc, `/p/${p.slug}`))}">${img}<div class="body"><h3><bdi>${escapeHtml(name)}</bdi></h3>${priceHtml(p, pc.store.currency, reading(pc))}<br>${stockBadge(p.stock, t)}${sale}</div></a></li>`;
    })
    .join('')}</ul>`;
}

export function categoryChips(
  pc: PageContext,
  categories: readonly PageCategory[],
  current?: number,
): string {
  if (categories.length === 0) return '';
  const t = PAGE_STRINGS[pc.locale];
  return `<nav aria-label="${escapeHtml(t.categories)}"><ul class="chips">${categories
    .map(
      (c) =>
        `<li><a href="${escapeHtml(link(pc, `/c/${c.slug}`))}"${c.id === current ? ' aria-current="page"' : ''}>${escapeHtml(pick(pc.locale, c.name, c.name_ar))}</a></li>`,
    )
    .join('')}</ul></nav>`;
}

export interface Paging {
  page: number;
  pages: number;
}

/** Previous / next links between pages of a list. */
export function pager(pc: PageContext, paging: Paging): string {
  if (paging.pages <= 1) return '';
  const at = (page: number): string => {
    const query: Record<string, string> = { ...(pc.query ?? {}) };
    if (page > 1) query.page = String(page);
    else delete query.page;
    return link(pc, pc.path, query);
  };
  const prev =
    paging.page > 1 ? `<a rel="prev" href="${escapeHtml(at(paging.page - 1))}">‹ ${paging.page - 1}</a>` : '';
  const next =
    paging.page < paging.pages
      ? `<a rel="next" href="${escapeHtml(at(paging.page + 1))}">${paging.page + 1} ›</a>`
      : '';
  return `<nav class="nav pager" aria-label="pages"><span>${paging.page} / ${paging.pages}</span>${prev}${next}</nav>`;
}
