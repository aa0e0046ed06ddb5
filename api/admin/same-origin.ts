import { ForbiddenError } from '../../shared/errors';
import type { AppMiddleware } from '../context';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const CROSS_SITE_MESSAGE = 'Cross-site request refused';

/**
 * Only the board's own page may act on the queues. A browser keeps sending the basic-auth credentials it
 * was given for this origin, so a form or fetch from another site's page would retry, promote or clean
 * jobs in the operator's name (cross-site request forgery; docs/security.md). Browsers say where a
 * request comes from: Sec-Fetch-Site (`same-origin` for the board's own fetches) and, on every request
 * that is not a GET or HEAD, Origin. A request that changes something (any method but GET, HEAD and
 * OPTIONS) is refused with a 403, before it reaches bull-board, unless what it says is this very origin;
 * Origin `null` (a sandboxed frame, a redirect from elsewhere) is refused too. A client that is no
 * browser (curl with the credentials) sends neither header and is let through to basic auth.
 */
export function sameOriginOnly(): AppMiddleware {
  return async (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const site = ctx.get('Sec-Fetch-Site');
    if (site && site !== 'same-origin') throw new ForbiddenError(CROSS_SITE_MESSAGE);
    const origin = ctx.get('Origin');
    if (origin && !isThisHost(origin, ctx.host)) throw new ForbiddenError(CROSS_SITE_MESSAGE);
    await next();
  };
}

/**
 * The Origin names this host (as the dashboard's forms are checked, api/dashboard/session.ts). The scheme is
 * left to Sec-Fetch-Site: behind a TLS-terminating proxy the request's own scheme may be http while the
 * page's is https.
 */
function isThisHost(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return url.origin === origin && url.host === host;
  } catch {
    return false;
  }
}
