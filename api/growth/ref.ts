import type { AppContext } from '../context';
import { CODE } from '../../shared/services/growth/creators';

/** The cookie that keeps a `?ref=CODE` for the browser session (first-party; docs/growth.md). */
export const REF_COOKIE = 'matjar_ref';

/**
 * The creator code this visitor arrived with: a `?ref=CODE` on this request (kept in a session cookie
 * for the store's pages: `SameSite=Lax`, HttpOnly, no expiry, so it ends with the browser session and is
 * never sent from another site), else the one kept earlier, else undefined. The store pages call it and
 * pass the answer to the checkout as `creator_code`; a code that names no creator is then refused there,
 * so only the code's form is checked here. `path` limits the cookie to one store's pages.
 */
export function refFromRequest(ctx: AppContext, path = '/'): string | undefined {
  const asked = ctx.query.ref;
  if (typeof asked === 'string' && CODE.test(asked)) {
    ctx.cookies.set(REF_COOKIE, asked, { httpOnly: true, sameSite: 'lax', path, overwrite: true });
    return asked;
  }
  const kept = ctx.cookies.get(REF_COOKIE);
  return kept && CODE.test(kept) ? kept : undefined;
}
