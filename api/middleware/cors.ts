import type { AppMiddleware } from '../context';
import { OriginNotAllowedError } from './origin-check';

/** The Embed API's cross-origin headers, value for value as the spec's "Cross-origin behaviour" gives them. */
export const EMBED_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Authorization, X-Embed-Key, X-Requested-With, Accept, Origin',
  'Access-Control-Allow-Credentials': 'false',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
});

/** The Storefront API's and analytics' cross-origin headers: any origin, without credentials. */
export const STOREFRONT_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Cart-Id, Accept',
  'Access-Control-Allow-Credentials': 'false',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-Cart-Id, Retry-After',
});

const EMBED = Object.entries(EMBED_CORS_HEADERS);
const STOREFRONT = Object.entries(STOREFRONT_CORS_HEADERS);

/**
 * CORS for the interfaces browsers call from other sites, in one pass over the interface the request id
 * middleware named (`ctx.state.interface`); every other interface (Merchant, License, FiveM, webhooks,
 * the platform's pages) is server to server or same-origin and gets no CORS headers at all.
 *
 * - Embed: exactly as the spec's "Cross-origin behaviour" gives it. Written by hand because @koa/cors sends
 *   nothing when a request has no Origin and drops Allow-Credentials when it is false, while the spec wants
 *   both.
 * - Storefront and analytics: open to any origin without credentials (tokens travel in headers,
 *   never cookies, so a foreign page can do nothing a script on the store's own page could not): a theme
 *   or app served from anywhere may call the API on the store's domain, where the store is found by Host,
 *   or from a store's own domain, where it is found by Origin (docs/operations.md). Headers only when the
 *   request names an Origin.
 *
 * `Origin: null` (sandboxed frames, file: pages, some redirects) names no site and could be anyone's: it
 * is refused with 403 on all three, and the answer carries no CORS headers, so the page cannot read it.
 * Headers are set before the rest of the chain runs, so they stay on 4xx/5xx answers the error handler
 * writes. A preflight is answered here with 204, before the embed key, origin check and rate limits:
 * browsers send it without custom headers, so it could never pass them.
 */
export function browserCors(): AppMiddleware {
  return (ctx, next) => {
    const iface = ctx.state.interface;
    const embed = iface === 'embed';
    if (!embed && iface !== 'storefront' && iface !== 'analytics') return next();
    const origin = ctx.req.headers.origin;
    if (origin !== undefined && origin.trim().toLowerCase() === 'null') throw new OriginNotAllowedError();
    if (!embed && !origin) return next();
    const res = ctx.res;
    res.setHeader('Access-Control-Allow-Origin', origin || '*');
    ctx.vary('Origin');
    for (const [name, value] of embed ? EMBED : STOREFRONT) res.setHeader(name, value);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return Promise.resolve();
    }
    return next();
  };
}
