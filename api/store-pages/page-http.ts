import { createHash } from 'node:crypto';
import Joi from 'joi';
import type { Store } from '../../db/models';
import { NotFoundError } from '../../shared/errors';
import { LIMITS } from '../../shared/rate-limits';
import { cachedProductView, type ProductView } from '../../shared/services/catalogue';
import {
  storeCatalogue,
  type PageProduct,
  type StoreCatalogue,
} from '../../shared/services/store-pages/catalogue';
import type { AppContext, AppMiddleware } from '../context';
import { type ResponseDoc } from '../http/route';
import { byClientIp, rateLimit } from '../middleware/rate-limit';
import { htmlResponse } from '../openapi/components';
import { pageLocale } from './i18n';
import type { PageContext } from './layout';
import { homeView, notFoundView } from './views';
import { serverTiming } from '../dashboard/server-timing';

/** What every store page route shares: limits, caching headers, the store and language of a request. */

export const PAGE_SIZE = 48;

/** Public pages: cacheable by a CDN for a short while; browsers revalidate with the ETag. */
export const CACHE_CONTROL = 'public, max-age=0, s-maxage=30, stale-while-revalidate=60';

// The page CSP: no script at all (the JSON-LD block is data, never run), the inline style sheet, images
// from anywhere (merchants' images live on their own hosts), forms only to this origin.
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  'img-src https: http: data:',
  "form-action 'self'",
  // Crawlers and audits read /robots.txt from within the page (Lighthouse does): same origin only.
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function storePageGuards(): AppMiddleware[] {
  // Server-Timing `app` (as the dashboard's pages): the bench reads the pages' server time from it.
  return [serverTiming(), rateLimit([{ def: LIMITS.storePagesPerIp, key: byClientIp }])];
}

export const limited: Record<number, ResponseDoc> = {
  429: {
    description: 'Too many requests from this IP (600 per minute).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformError' } } },
  },
};

export const slugParam = Joi.string().max(200).required().description('The store’s slug.');
export const langQuery = Joi.string()
  .valid('ar', 'en')
  .description('The page language; default: Accept-Language.');
export const pageQuery = Joi.number()
  .integer()
  .min(1)
  .max(10_000)
  .default(1)
  .description('The page of products.');

export function base(ctx: AppContext): string {
  return ctx.deps.config.publicBaseUrl.replace(/\/+$/, '');
}

/** Sends a public page with its ETag (304 when the client has it) and the CDN's Cache-Control. */
export function sendPublic(
  ctx: AppContext,
  status: number,
  type: string,
  body: string,
  explicit = true,
  etag?: string,
): void {
  ctx.status = status;
  ctx.type = type;
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (type.startsWith('text/html')) {
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.set('Referrer-Policy', 'strict-origin-when-cross-origin');
  }
  // Without ?lang= the language came from Accept-Language: caches keep one copy per language.
  if (!explicit) ctx.vary('Accept-Language');
  if (status !== 200) {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
    return;
  }
  ctx.set('Cache-Control', CACHE_CONTROL);
  ctx.set('ETag', etag ?? etagOf(body));
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  ctx.body = body;
}

export interface Resolved {
  store: Store;
  pc: PageContext;
  explicit: boolean;
}

export function contextOf(
  ctx: AppContext,
  store: Store,
  path: string,
  query?: Record<string, string>,
): Resolved {
  const { locale, explicit } = pageLocale(ctx, (store as Store & { locale?: string }).locale);
  return { store, explicit, pc: { store, locale, base: base(ctx), path, ...(query ? { query } : {}) } };
}

/** The 404 page in the store's look, or a bare one when the store itself is unknown. */
export function sendNotFound(ctx: AppContext, store: Store | undefined, path: string): void {
  if (!store) {
    ctx.status = 404;
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', PAGE_CSP);
    ctx.body =
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Store not found</title></head><body><main><h1>Store not found</h1><p lang="ar" dir="rtl">المتجر غير موجود</p></main></body></html>';
    return;
  }
  const r = contextOf(ctx, store, path);
  sendPublic(ctx, 404, 'text/html; charset=utf-8', notFoundView(r.pc), r.explicit);
}

export function pageOf<T>(items: readonly T[], page: number): T[] {
  return items.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
}

export function productBySlug(catalogue: StoreCatalogue, slug: string): PageProduct | undefined {
  return catalogue.products.find((p) => p.slug === slug);
}

/** The Embed product answer (stock, plans, methods, field rules), or null when it is off sale meanwhile. */
export async function embedProduct(
  ctx: AppContext,
  store: Store,
  id: number,
): Promise<Readonly<ProductView> | null> {
  try {
    return await cachedProductView(ctx.deps, store, id);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

const etagOf = (body: string): string =>
  `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/**
 * A page's bytes and ETag, rendered once per catalogue stamp (the store's and its products' counters,
 * which every writer of what a list shows bumps): a store of 500 products is not rendered and hashed
 * again for every reader. `key` names everything else the bytes depend on (page, language, query).
 */
export function rendered(
  ctx: AppContext,
  key: string,
  stamp: string,
  render: () => string,
): { body: string; etag: string } {
  const cache = ctx.deps.caches.of<{ body: string; etag: string }>('store-page-html', undefined, 2_000);
  const hit = cache.get(key, stamp);
  if (hit) return hit;
  const body = render();
  const value = { body, etag: etagOf(body) };
  cache.set(key, stamp, value);
  return value;
}

export async function renderHome(ctx: AppContext, store: Store, page: number): Promise<void> {
  const catalogue = await storeCatalogue(ctx.deps, store.id);
  const r = contextOf(ctx, store, '', page > 1 ? { page: String(page) } : undefined);
  const { body, etag } = rendered(ctx, `${store.id}|home|${r.pc.locale}|${page}`, catalogue.stamp, () =>
    homeView(r.pc, catalogue.categories, pageOf(catalogue.products, page), {
      page,
      pages: Math.max(1, Math.ceil(catalogue.products.length / PAGE_SIZE)),
    }),
  );
  sendPublic(ctx, 200, 'text/html; charset=utf-8', body, r.explicit, etag);
}

export const htmlPage = (what: string) => ({
  ...limited,
  200: htmlResponse(what),
  304: { description: 'Not modified: the If-None-Match ETag is current.' },
  404: htmlResponse('No store with this slug, or no such page in it.'),
});

export const storeParams = Joi.object<{ slug: string }, true>({ slug: slugParam });
