import Joi from 'joi';
import {
  productReviews,
  searchProducts,
  storeBySlug,
  storeCatalogue,
} from '../../shared/services/store-pages/catalogue';
import { storeForHost } from '../../shared/services/store-pages/hosts';
import { defineRoute } from '../http/route';
import { htmlResponse } from '../openapi/components';
import { formatAmount } from '../pay/i18n';
import { pageLocale, pick } from './i18n';
import { cardSvg, robotsTxt, sitemapXml } from './seo-files';
import { categoryView, policiesView, productViewHtml, searchView } from './views';
import {
  base,
  contextOf,
  embedProduct,
  htmlPage,
  langQuery,
  limited,
  PAGE_SIZE,
  pageOf,
  pageQuery,
  productBySlug,
  renderHome,
  rendered,
  sendNotFound,
  sendPublic,
  slugParam,
  storePageGuards,
  storeParams,
} from './page-http';
import { storeCheckoutRoutes } from './checkout-routes';
import { keepRef, refQuery } from './ref';

/**
 * Store pages and buy links (docs/store-pages.md; the operator contract's "Store pages and buy links"):
 * `/s/{slug}` and its category, product, search and policies pages, `sitemap.xml` and `robots.txt`, the
 * hosted checkout of one product, and `/` on a verified store domain (or `{slug}.<STORE_DOMAIN_SUFFIX>`).
 *
 * Reads come from the hot-read caches (shared/services/store-pages/catalogue.ts); each page carries a
 * strong ETag of its bytes (a matching If-None-Match is a 304) and Cache-Control for a CDN in front.
 * The checkout posts to the Embed API's own checkout service (shared/services/checkout createCheckout)
 * and payment start (shared/services/payments startFromCheckoutPage): one set of rules for every door.
 */

export const storePageRoutes = [
  defineRoute({
    method: 'get',
    path: '/s/{slug}',
    interface: 'platform',
    operationId: 'storePage',
    summary: 'Store page',
    description:
      'The store’s home page (HTML): name, logo, accent colour, description, categories, and its products on ' +
      'sale (image, price, sale price, stock state, a link to each product page), 48 a page. `?lang=ar` ' +
      'Arabic right to left, `?lang=en` English; without it, Accept-Language. ETag and Cache-Control for a ' +
      'CDN; SEO head (title, description, canonical, hreflang, OpenGraph, Twitter). docs/store-pages.md.',
    security: [],
    guards: storePageGuards,
    request: {
      params: storeParams,
      query: Joi.object<{ lang?: string; page: number; ref?: string }, true>({
        lang: langQuery,
        page: pageQuery,
        ref: refQuery,
      }),
    },
    responses: htmlPage('The store page.'),
    handler: async (ctx, { params, query }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '');
      await renderHome(ctx, store, query.page);
      keepRef(ctx, store);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/c/{category}',
    interface: 'platform',
    operationId: 'storeCategoryPage',
    summary: 'Store category page',
    description:
      'The category’s name and description and its products on sale, as the store page lists them.',
    security: [],
    guards: storePageGuards,
    request: {
      params: Joi.object<{ slug: string; category: string }, true>({
        slug: slugParam,
        category: Joi.string().max(200).required().description('The category’s slug.'),
      }),
      query: Joi.object<{ lang?: string; page: number; ref?: string }, true>({
        lang: langQuery,
        page: pageQuery,
        ref: refQuery,
      }),
    },
    responses: htmlPage('The category page.'),
    handler: async (ctx, { params, query }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      const path = `/c/${params.category}`;
      if (!store) return sendNotFound(ctx, undefined, path);
      const catalogue = await storeCatalogue(ctx.deps, store.id);
      const category = catalogue.categories.find((c) => c.slug === params.category);
      if (!category) return sendNotFound(ctx, store, path);
      const r = contextOf(ctx, store, path, query.page > 1 ? { page: String(query.page) } : undefined);
      const key = `${store.id}|c|${category.id}|${r.pc.locale}|${query.page}`;
      const { body, etag } = rendered(ctx, key, catalogue.stamp, () => {
        const products = catalogue.products.filter((p) => p.category_ids.includes(category.id));
        return categoryView(r.pc, catalogue.categories, category, pageOf(products, query.page), {
          page: query.page,
          pages: Math.max(1, Math.ceil(products.length / PAGE_SIZE)),
        });
      });
      sendPublic(ctx, 200, 'text/html; charset=utf-8', body, r.explicit, etag);
      keepRef(ctx, store);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/p/{product}',
    interface: 'platform',
    operationId: 'storeProductPage',
    summary: 'Product page (the buy link)',
    description:
      'The product’s name (`name_ar` for Arabic readers when set), images, description, price (the sale ' +
      'price when one applies, the list price struck through), stock state, custom fields, plans, published ' +
      'reviews (with "verified purchase") and a buy control leading to the hosted checkout in the same tab. ' +
      'A JSON-LD `Product` with `offers` (`price`, `priceCurrency`, `availability`) and `aggregateRating`; ' +
      '`og:image` is the product image or its generated card. An inactive or deleted product is a 404 page.',
    security: [],
    guards: storePageGuards,
    request: {
      params: Joi.object<{ slug: string; product: string }, true>({
        slug: slugParam,
        product: Joi.string().max(200).required().description('The product’s slug.'),
      }),
      query: Joi.object<{ lang?: string; ref?: string }, true>({ lang: langQuery, ref: refQuery }),
    },
    responses: htmlPage('The product page.'),
    handler: async (ctx, { params }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      const path = `/p/${params.product}`;
      if (!store) return sendNotFound(ctx, undefined, path);
      const catalogue = await storeCatalogue(ctx.deps, store.id);
      const product = productBySlug(catalogue, params.product);
      const embed = product ? await embedProduct(ctx, store, product.id) : null;
      if (!product || !embed) return sendNotFound(ctx, store, path);
      const reviews = await productReviews(ctx.deps, store.id, product.id);
      const r = contextOf(ctx, store, path);
      const card = `${base(ctx)}/s/${store.slug}/p/${product.slug}/card.svg?lang=${r.pc.locale}`;
      const html = productViewHtml(r.pc, product, embed, reviews, card);
      sendPublic(ctx, 200, 'text/html; charset=utf-8', html, r.explicit);
      keepRef(ctx, store);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/p/{product}/card.svg',
    interface: 'platform',
    operationId: 'storeProductCard',
    summary: 'Product card image',
    description:
      'A generated 1200×630 card (SVG) with the product’s name, price and the store’s name in its accent ' +
      'colour: the `og:image` of a product without its own image.',
    security: [],
    guards: storePageGuards,
    request: {
      params: Joi.object<{ slug: string; product: string }, true>({
        slug: slugParam,
        product: Joi.string().max(200).required().description('The product’s slug.'),
      }),
      query: Joi.object<{ lang?: string }, true>({ lang: langQuery }),
    },
    responses: {
      ...limited,
      200: { description: 'The card.', content: { 'image/svg+xml': { schema: { type: 'string' } } } },
      304: { description: 'Not modified.' },
      404: htmlResponse('No such store or product.'),
    },
    handler: async (ctx, { params }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '');
      const product = productBySlug(await storeCatalogue(ctx.deps, store.id), params.product);
      if (!product) return sendNotFound(ctx, store, `/p/${params.product}`);
      const { locale, explicit } = pageLocale(ctx, undefined);
      const price = formatAmount(product.sale_price_minor ?? product.price_minor, store.currency, {
        locale,
        digits: store.digits === 'arabic_indic' ? 'arabic_indic' : 'western',
      });
      const svg = cardSvg(store, pick(locale, product.name, product.name_ar), price, locale);
      sendPublic(ctx, 200, 'image/svg+xml; charset=utf-8', svg, explicit);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/search',
    interface: 'platform',
    operationId: 'storeSearchPage',
    summary: 'Store search',
    description:
      'Products on sale whose name or description (either language) contains `q`, case-insensitively; ' +
      'not indexed by search engines.',
    security: [],
    guards: storePageGuards,
    request: {
      params: storeParams,
      query: Joi.object<{ lang?: string; q: string; page: number }, true>({
        lang: langQuery,
        q: Joi.string().trim().max(100).allow('').default('').description('What to look for.'),
        page: pageQuery,
      }),
    },
    responses: htmlPage('The results.'),
    handler: async (ctx, { params, query }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '/search');
      const catalogue = await storeCatalogue(ctx.deps, store.id);
      const r = contextOf(ctx, store, '/search', {
        q: query.q,
        ...(query.page > 1 ? { page: String(query.page) } : {}),
      });
      const key = `${store.id}|q|${r.pc.locale}|${query.page}|${query.q}`;
      const { body, etag } = rendered(ctx, key, catalogue.stamp, () => {
        const found = searchProducts(catalogue.products, query.q);
        return searchView(r.pc, query.q, pageOf(found, query.page), {
          page: query.page,
          pages: Math.max(1, Math.ceil(found.length / PAGE_SIZE)),
        });
      });
      sendPublic(ctx, 200, 'text/html; charset=utf-8', body, r.explicit, etag);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/policies',
    interface: 'platform',
    operationId: 'storePoliciesPage',
    summary: 'Store policies',
    description: 'The policies the merchant wrote (refunds, contact), as plain text.',
    security: [],
    guards: storePageGuards,
    request: { params: storeParams, query: Joi.object<{ lang?: string }, true>({ lang: langQuery }) },
    responses: htmlPage('The policies page.'),
    handler: async (ctx, { params }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '/policies');
      const r = contextOf(ctx, store, '/policies');
      sendPublic(ctx, 200, 'text/html; charset=utf-8', policiesView(r.pc), r.explicit);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/sitemap.xml',
    interface: 'platform',
    operationId: 'storeSitemap',
    summary: 'Store sitemap',
    description:
      'The store page, its policies, category and product pages (with `lastmod`), each with its Arabic and ' +
      'English alternates (`xhtml:link hreflang`).',
    security: [],
    guards: storePageGuards,
    request: { params: storeParams },
    responses: {
      ...limited,
      200: { description: 'The sitemap.', content: { 'application/xml': { schema: { type: 'string' } } } },
      304: { description: 'Not modified.' },
      404: htmlResponse('No store with this slug.'),
    },
    handler: async (ctx, { params }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '');
      const catalogue = await storeCatalogue(ctx.deps, store.id);
      const xml = sitemapXml(base(ctx), store, catalogue.products, catalogue.categories);
      sendPublic(ctx, 200, 'application/xml; charset=utf-8', xml);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/s/{slug}/robots.txt',
    interface: 'platform',
    operationId: 'storeRobots',
    summary: 'Store robots.txt',
    description:
      'Allows the store’s pages, keeps crawlers out of its checkout and search, and names its sitemap. On a ' +
      'store domain the same text answers at `/robots.txt`.',
    security: [],
    guards: storePageGuards,
    request: { params: storeParams },
    responses: {
      ...limited,
      200: { description: 'The rules.', content: { 'text/plain': { schema: { type: 'string' } } } },
      304: { description: 'Not modified.' },
      404: htmlResponse('No store with this slug.'),
    },
    handler: async (ctx, { params }) => {
      const store = await storeBySlug(ctx.deps, params.slug);
      if (!store) return sendNotFound(ctx, undefined, '');
      sendPublic(ctx, 200, 'text/plain; charset=utf-8', robotsTxt(base(ctx), store));
    },
  }),
  ...storeCheckoutRoutes,
  defineRoute({
    method: 'get',
    path: '/',
    interface: 'platform',
    operationId: 'storeDomainHome',
    summary: 'Store page on a store domain',
    description:
      'On a verified store domain (or `{slug}.<STORE_DOMAIN_SUFFIX>` when that is set), the store page as ' +
      'at `/s/{slug}`. On any other host, a 404 page.',
    security: [],
    guards: storePageGuards,
    request: {
      query: Joi.object<{ lang?: string; page: number }, true>({ lang: langQuery, page: pageQuery }),
    },
    responses: htmlPage('The store page.'),
    handler: async (ctx, { query }) => {
      const store = await storeForHost(ctx.deps, ctx.hostname, ctx.deps.config.storeDomainSuffix);
      if (!store) return sendNotFound(ctx, undefined, '');
      await renderHome(ctx, store, query.page);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/robots.txt',
    interface: 'platform',
    operationId: 'storeDomainRobots',
    summary: 'robots.txt on a store domain',
    description: 'The store’s robots.txt on its verified domain; elsewhere the platform’s own (allows all).',
    security: [],
    guards: storePageGuards,
    responses: {
      ...limited,
      200: { description: 'The rules.', content: { 'text/plain': { schema: { type: 'string' } } } },
      304: { description: 'Not modified.' },
    },
    handler: async (ctx) => {
      const store = await storeForHost(ctx.deps, ctx.hostname, ctx.deps.config.storeDomainSuffix);
      const text = store
        ? robotsTxt(base(ctx), store)
        : 'User-agent: *\nDisallow: /pay/\nDisallow: /merchant\nDisallow: /account\n';
      sendPublic(ctx, 200, 'text/plain; charset=utf-8', text);
    },
  }),
];
