import type { ProductView } from '../../shared/services/catalogue';
import type { PageCategory, PageProduct, PageReview } from '../../shared/services/store-pages/catalogue';
import { formatMoney, parseMoney } from '../../shared/money';
import { escapeHtml } from '../pay/html';
import { formatAmount, withDigits } from '../pay/i18n';
import { PAGE_STRINGS, pick } from './i18n';
import {
  categoryChips,
  clip,
  initial,
  layout,
  link,
  pager,
  pageUrl,
  priceHtml,
  reading,
  productCards,
  stockBadge,
  type PageContext,
  type Paging,
  type Seo,
} from './layout';

/** The store pages themselves (docs/store-pages.md), each in the shared layout (layout.ts). */

export function homeView(
  pc: PageContext,
  categories: readonly PageCategory[],
  products: readonly PageProduct[],
  paging: Paging,
): string {
  const t = PAGE_STRINGS[pc.locale];
  const store = pc.store;
  const description = store.page_description ?? '';
  const seo: Seo = {
    title: store.name,
    description: clip(
      description ||
        `${store.name}: ${products
          .map((p) => pick(pc.locale, p.name, p.name_ar))
          .slice(0, 8)
          .join('، ')}`,
      160,
    ),
    image: store.logo_url,
    type: 'website',
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'Store',
      name: store.name,
      url: pageUrl(pc, pc.locale),
      ...(description ? { description } : {}),
      ...(store.logo_url ? { logo: store.logo_url } : {}),
    },
  };
  const body = `<h1><bdi>${escapeHtml(store.name)}</bdi></h1>
${description ? `<p class="muted text">${escapeHtml(description)}</p>` : ''}
${categoryChips(pc, categories)}
<h2>${escapeHtml(t.allProducts)}</h2>
${products.length ? productCards(pc, products) : `<p class="muted">${escapeHtml(t.noProducts)}</p>`}
${pager(pc, paging)}`;
  return layout(pc, seo, body);
}

export function categoryView(
  pc: PageContext,
  categories: readonly PageCategory[],
  category: PageCategory,
  products: readonly PageProduct[],
  paging: Paging,
): string {
  const t = PAGE_STRINGS[pc.locale];
  const name = pick(pc.locale, category.name, category.name_ar);
  const description = pick(pc.locale, category.description, category.description_ar);
  const seo: Seo = {
    title: `${name} · ${pc.store.name}`,
    description: clip(
      description ||
        `${name}: ${products
          .map((p) => pick(pc.locale, p.name, p.name_ar))
          .slice(0, 8)
          .join('، ')}`,
      160,
    ),
    image: pc.store.logo_url,
    type: 'website',
  };
  const body = `<h1>${escapeHtml(name)}</h1>
${description ? `<p class="muted text">${escapeHtml(description)}</p>` : ''}
${categoryChips(pc, categories, category.id)}
<h2>${escapeHtml(t.products)}</h2>
${products.length ? productCards(pc, products) : `<p class="muted">${escapeHtml(t.noProducts)}</p>`}
${pager(pc, paging)}`;
  return layout(pc, seo, body);
}

export function searchView(
  pc: PageContext,
  query: string,
  products: readonly PageProduct[],
  paging: Paging,
): string {
  const t = PAGE_STRINGS[pc.locale];
  const seo: Seo = {
    title: `${t.searchTitle(query)} · ${pc.store.name}`,
    description: clip(`${pc.store.name}: ${t.searchTitle(query)}`, 160),
    image: null,
    type: 'website',
    // Result pages are not indexed (search engines index the product pages themselves).
    noindex: true,
  };
  const body = `<h1>${escapeHtml(t.searchTitle(query))}</h1>
${products.length ? productCards(pc, products) : `<p class="muted">${escapeHtml(query ? t.noResults : t.searchLabel)}</p>`}
${pager(pc, paging)}`;
  return layout(pc, seo, body);
}

export function policiesView(pc: PageContext): string {
  const t = PAGE_STRINGS[pc.locale];
  const text = pc.store.policies ?? '';
  const seo: Seo = {
    title: `${t.policiesTitle} · ${pc.store.name}`,
    description: clip(text || t.noPolicies, 160),
    image: null,
    type: 'website',
  };
  const body = `<h1>${escapeHtml(t.policiesTitle)}</h1>
<div class="panel"><p class="text" dir="auto">${escapeHtml(text || t.noPolicies)}</p></div>`;
  return layout(pc, seo, body);
}

export function notFoundView(pc: PageContext): string {
  const t = PAGE_STRINGS[pc.locale];
  const seo: Seo = {
    title: t.notFoundTitle,
    description: t.notFound,
    image: null,
    type: 'website',
    noindex: true,
  };
  return layout(
    pc,
    seo,
    `<h1>${escapeHtml(t.notFoundTitle)}</h1><p>${escapeHtml(t.notFound)}</p><p><a href="${escapeHtml(link(pc, ''))}">${escapeHtml(t.backToStore)}</a></p>`,
  );
}

const AVAILABILITY = (stock: number | null): string =>
  stock === null || stock > 0 ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock';

function stars(rating: number): string {
  return '★'.repeat(rating) + '☆'.repeat(Math.max(0, 5 - rating));
}

/** The decimal price as JSON-LD wants it ("40.00"): exact, with the currency's own decimals. */
function decimalPrice(p: PageProduct, currency: string): string {
  return formatMoney(p.sale_price_minor ?? p.price_minor, currency);
}

export function productViewHtml(
  pc: PageContext,
  product: PageProduct,
  embed: Readonly<ProductView> | null,
  reviews: { reviews: PageReview[]; count: number; average: number | null },
  cardImage: string,
): string {
  const t = PAGE_STRINGS[pc.locale];
  const store = pc.store;
  const name = pick(pc.locale, product.name, product.name_ar);
  const description = pick(pc.locale, product.description, product.description_ar);
  const stock = embed ? embed.stock.quantity : product.stock;
  const inStock = stock === null || stock > 0;
  const image = product.image_url ?? cardImage;
  const url = pageUrl(pc, pc.locale);
  const seo: Seo = {
    title: `${name} · ${store.name}`,
    description: clip(
      description ||
        `${name} · ${formatAmount(product.sale_price_minor ?? product.price_minor, store.currency, reading(pc))} · ${store.name}`,
      160,
    ),
    image,
    type: 'product',
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'Product',
      name,
      sku: String(product.id),
      url,
      image: [image],
      ...(description ? { description: clip(description, 5000) } : {}),
      brand: { '@type': 'Brand', name: store.name },
      offers: {
        '@type': 'Offer',
        url,
        price: decimalPrice(product, store.currency),
        priceCurrency: store.currency,
        availability: AVAILABILITY(stock),
        seller: { '@type': 'Organization', name: store.name },
      },
      ...(reviews.count > 0 && reviews.average !== null
        ? {
            aggregateRating: {
              '@type': 'AggregateRating',
              ratingValue: reviews.average.toFixed(1),
              reviewCount: reviews.count,
              bestRating: 5,
              worstRating: 1,
            },
            review: reviews.reviews.slice(0, 5).map((r) => ({
              '@type': 'Review',
              reviewRating: { '@type': 'Rating', ratingValue: r.rating, bestRating: 5 },
              author: { '@type': 'Person', name: r.author || 'Buyer' },
              ...(r.comment ? { reviewBody: r.comment } : {}),
              datePublished: r.created_at.slice(0, 10),
            })),
          }
        : {}),
    },
  };
  const picture = product.image_url
    ? `<img class="hero" src="${escapeHtml(product.image_url)}" alt="${escapeHtml(name)}" width="800" height="600" fetchpriority="high">`
    : `<span class="ph hero" aria-hidden="true">${initial(name)}</span>`;
  const fields = product.fields.length
    ? `<h2>${escapeHtml(t.options)}</h2><ul>${product.fields
        .map(
          (f) =>
            `<li>${escapeHtml(pick(pc.locale, f.label, f.label_ar))} <span class="muted">(${escapeHtml(f.required ? t.required : t.optional)})</span>${
              f.type === 'select' && f.options?.length
                ? `: ${f.options.map((o) => escapeHtml(pick(pc.locale, o.label, o.label_ar))).join('، ')}`
                : ''
            }</li>`,
        )
        .join('')}</ul>`
    : '';
  const plans =
    embed && embed.subscription_plans.length
      ? `<h2>${escapeHtml(t.plans)}</h2><ul>${embed.subscription_plans
          .map(
            (p) =>
              `<li><bdi>${escapeHtml(p.name)}</bdi>: <span class="price">${escapeHtml(t.perPeriod(formatAmount(parseMoney(p.price, store.currency) ?? 0, store.currency, reading(pc)), t.durations[p.duration] ?? p.duration))}</span></li>`,
          )
          .join('')}</ul>`
      : '';
  const reviewList = reviews.count
    ? `<p>${escapeHtml(withDigits(t.ratingOf((reviews.average ?? 0).toFixed(1), reviews.count), reading(pc)))}</p><ul class="reviews">${reviews.reviews
        .map(
          (r) =>
            `<li data-review-id="${r.id}"><span class="stars" role="img" aria-label="${escapeHtml(t.stars(r.rating))}">${stars(r.rating)}</span> <strong><bdi>${escapeHtml(r.author)}</bdi></strong>${r.verified ? `<span class="ok" data-verified>✓ ${escapeHtml(t.verified)}</span>` : ''}${r.comment ? `<p class="text" dir="auto">${escapeHtml(r.comment)}</p>` : ''}</li>`,
        )
        .join('')}</ul>`
    : `<p class="muted">${escapeHtml(t.noReviews)}</p>`;
  const buy = inStock
    ? `<a class="button" data-buy href="${escapeHtml(link(pc, `/checkout/${product.slug}`))}">${escapeHtml(t.buy)}</a>`
    : `<p><span class="badge out" data-stock="out">${escapeHtml(t.soldOut)}</span></p>`;
  const body = `<p class="muted"><a href="${escapeHtml(link(pc, ''))}">${escapeHtml(t.backToStore)}</a></p>
<div class="product">
<div>${picture}</div>
<div class="panel">
<h1><bdi>${escapeHtml(name)}</bdi></h1>
<p>${priceHtml(product, store.currency, reading(pc))}</p>
<p>${stockBadge(stock, t)}</p>
${buy}
${description ? `<h2>${escapeHtml(t.description)}</h2><p class="text" dir="auto">${escapeHtml(description)}</p>` : ''}
${plans}
${fields}
</div>
</div>
<section aria-labelledby="reviews"><h2 id="reviews">${escapeHtml(t.reviews)}</h2>${reviewList}</section>`;
  return layout(pc, seo, body);
}

/** The generated card image (SVG, 1200×630) of a product without its own image: name, price, store. */
