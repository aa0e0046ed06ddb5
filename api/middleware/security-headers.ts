import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { AppMiddleware } from '../context';

/**
 * Security headers on every answer, from helmet, rather than set by hand:
 *
 * - everywhere: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` (nothing of ours is meant to be
 *   framed: a framed payment page invites click-jacking), `Referrer-Policy: no-referrer` (paths such as
 *   /pay/{checkout_url} are secrets and must not leak to the next site), and helmet's other small ones.
 *   Left out on purpose: Cross-Origin-Resource-Policy (the widget script and the Embed API are loaded
 *   from merchants' sites), Cross-Origin-Opener-Policy (the widget may open the payment page), COEP, and
 *   HSTS (set by the TLS-terminating proxy, which knows whether the merchant's domains are all on https).
 * - HTML pages (/pay, /sandbox, /docs, /admin, any future one): a Content-Security-Policy that allows only
 *   this server's own scripts, styles, images and connections and no framing (`frame-ancestors 'none'`).
 *   Styles may be inline (the payment pages carry a <style> block; Swagger UI and the queue dashboard set
 *   style attributes); scripts may not. No `form-action`: the payment pages post to ourselves but then
 *   redirect to payment providers and back to the merchant's site, which form-action would block.
 */
export const HTML_CSP_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'frame-ancestors': ["'none'"],
};

type HeaderList = ReadonlyArray<readonly [string, string]>;

/**
 * The headers a helmet middleware writes, read once by running it against a recording response: helmet
 * stays the source of truth for names and values, while a request pays only for the setHeader calls
 * (running helmet's chain of small middlewares on every request cost about a tenth of the HTTP floor).
 */
function headersOf(
  middleware: (req: IncomingMessage, res: ServerResponse, next: () => void) => void,
): HeaderList {
  const written = new Map<string, string>();
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      written.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    },
    removeHeader(name: string) {
      written.delete(name);
    },
    getHeader: (name: string) => written.get(name),
  } as unknown as ServerResponse;
  middleware({ headers: {} } as IncomingMessage, recorder, () => undefined);
  return [...written];
}

const EVERYWHERE: HeaderList = headersOf(
  helmet({
    contentSecurityPolicy: false,
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  }),
);
const [[CSP_NAME, HTML_CSP]] = headersOf(
  helmet.contentSecurityPolicy({ useDefaults: false, directives: HTML_CSP_DIRECTIVES }),
);

export function securityHeaders(): AppMiddleware {
  return async (ctx, next) => {
    const res = ctx.res;
    for (const [name, value] of EVERYWHERE) res.setHeader(name, value);
    await next();
    // The page is known once the route has answered; headers are still unsent at this point. A page that
    // sets a stricter policy of its own (the docs page, the widget demo) keeps it, never framed.
    const type = res.getHeader('Content-Type');
    if (typeof type !== 'string' || !type.includes('html')) return;
    const own = ctx.response.get('Content-Security-Policy');
    if (!own) ctx.set(CSP_NAME, HTML_CSP);
    else if (!own.includes('frame-ancestors'))
      ctx.set('Content-Security-Policy', `${own}; frame-ancestors 'none'`);
  };
}
