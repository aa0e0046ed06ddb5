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
 * CORS for the Storefront and analytics routes: a storefront served from a store's own domain may call
 * the API on another one (the store is then found by its Origin, CONTRACT section 8). Only an Origin whose
 * host is a store's domain is allowed; any other gets no CORS headers and its browser refuses the answer.
 * A preflight from an allowed origin is answered here with 204, before the guards.
 */
export function storefrontCors(): AppMiddleware {
  return async (ctx, next) => {
    const iface = interfaceFor(ctx.path);
    const origin = ctx.get('Origin');
    if ((iface !== 'storefront' && iface !== 'analytics') || !origin) return next();
    let host: string;
    try {
      host = new URL(origin).hostname.toLowerCase();
    } catch {
      return next();
    }
    const known =
      host.length > 0 &&
      host.length <= 253 &&
      (await ctx.deps.knex('store_domains').where('domain', host).first('id')) !== undefined;
    if (!known) return next();
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
