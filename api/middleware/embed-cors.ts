import type { AppMiddleware } from '../context';
import { interfaceFor } from '../interfaces';

/** The Embed API's cross-origin headers, value for value as the spec's "Cross-origin behaviour" gives them. */
export const EMBED_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Authorization, X-Embed-Key, X-Requested-With, Accept, Origin',
  'Access-Control-Allow-Credentials': 'false',
  'Access-Control-Max-Age': '86400',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After',
});

/**
 * CORS for every /api/embed response. Written by hand because @koa/cors sends nothing when a request has
 * no Origin and drops Allow-Credentials when it is false, while the spec wants both. Headers are set
 * before the rest of the chain runs, so they stay on 4xx/5xx answers the error handler writes.
 * A preflight is answered here, before the embed key, origin check and rate limits: browsers send it
 * without custom headers, so it could never pass them.
 */
export function embedCors(): AppMiddleware {
  return async (ctx, next) => {
    if (interfaceFor(ctx.path) !== 'embed') return next();
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
