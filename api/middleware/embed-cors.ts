import type { AppMiddleware } from '../context';
import { InterfaceName, interfaceFor } from '../interfaces';
import { OriginNotAllowedError } from './origin-check';

/** The Embed API's cross-origin headers, value for value as the spec's "Cross-origin behaviour" gives them. */
export const EMBED_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Authorization, X-Embed-Key, X-Requested-With, Accept, Origin',
  'Access-Control-Allow-Credentials': 'false',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After',
});

/** The interfaces browsers call from other sites: open to any origin, without credentials. */
const BROWSER_INTERFACES: ReadonlySet<InterfaceName> = new Set(['embed', 'storefront', 'analytics']);

/**
 * CORS for the Embed API exactly as the spec's "Cross-origin behaviour" gives it (the Storefront API and
 * analytics, called from the stores' own domains, get theirs from storefront-cors.ts). Written by hand because @koa/cors sends nothing when a request has no Origin and drops
 * Allow-Credentials when it is false, while the spec wants both. Headers are set before the rest of the
 * chain runs, so they stay on 4xx/5xx answers the error handler writes. A preflight is answered here,
 * before the embed key, origin check and rate limits: browsers send it without custom headers, so it
 * could never pass them.
 *
 * `Origin: null` (sandboxed frames, file: pages, some redirects) names no site and could be anyone's: it
 * is refused with 403, and the answer carries no CORS headers, so the page cannot read it. Every other
 * interface (Merchant, License, FiveM, webhooks) is server to server and sends no CORS headers at all.
 */
export function embedCors(): AppMiddleware {
  return async (ctx, next) => {
    const iface = interfaceFor(ctx.path);
    if (!BROWSER_INTERFACES.has(iface)) return next();
    if (ctx.get('Origin').trim().toLowerCase() === 'null') throw new OriginNotAllowedError();
    // The Storefront and analytics allow only their stores' own domains (storefront-cors.ts).
    if (iface !== 'embed') return next();
    ctx.set('Access-Control-Allow-Origin', ctx.get('Origin') || '*');
    ctx.vary('Origin');
    ctx.set({ ...EMBED_CORS_HEADERS });
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    await next();
  };
}
