import type { AppMiddleware } from '../context';
import { interfaceFor } from '../interfaces';

export const STOREFRONT_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Content-Type, Authorization, X-Cart-Id, Accept',
  'Access-Control-Allow-Credentials': 'false',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-Cart-Id, Retry-After',
});

/**
 * CORS for the Storefront and analytics routes, open to any origin without credentials (issue 10: tokens
 * travel in headers, never cookies, so a foreign page can do nothing a script on the store's own page
 * could not): a theme or app served from anywhere may call the API on the store's domain, where the store
 * is found by Host, or from a store's own domain, where it is found by Origin (CONTRACT section 8).
 * `Origin: null` is refused before this (embed-cors.ts). A preflight is answered here with 204, before the
 * guards.
 */
export function storefrontCors(): AppMiddleware {
  return async (ctx, next) => {
    const iface = interfaceFor(ctx.path);
    const origin = ctx.get('Origin');
    if ((iface !== 'storefront' && iface !== 'analytics') || !origin) return next();
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.vary('Origin');
    ctx.set({ ...STOREFRONT_CORS_HEADERS });
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    await next();
  };
}
