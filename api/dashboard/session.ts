import type { Store } from '../../db/models';
import { storeById } from '../../shared/services/stores/lookup';
import { hasPaymentMethod } from '../../shared/services/launch/checklist';
import type { Deps } from '../../shared/deps';
import type { Membership } from '../../shared/services/staff/accounts';
import { can, Permission } from '../../shared/services/staff/roles';
import { findSession, formToken, formTokenMatches, SignedIn } from '../../shared/services/staff/sessions';
import type { AppContext, AppMiddleware } from '../context';
import { pickLocale } from '../pay/i18n';
import { esc, pageContext, PageContext, publicPage, sendPage, ShellContext } from './layout';

/**
 * Cookies and the guard of every signed-in page.
 *
 * Cookies are `HttpOnly`, `SameSite=Strict` and scoped to `/merchant`; `Secure` whenever the dashboard is
 * served over HTTPS (the request came over TLS, or PUBLIC_BASE_URL is https, as in production): a browser
 * would never send a Secure cookie back over plain http, so on an http-only deployment it would lock
 * everyone out instead of protecting anything.
 *
 * Every POST (signed in or not) must come from one of our own pages: a browser's Origin header, when
 * present, must be this host; a signed-in POST must also carry the session's form token.
 */
export const SESSION_COOKIE = 'matjar_merchant';
/** The pending code: `<purpose>.<otp session token>`. */
export const PENDING_COOKIE = 'matjar_merchant_otp';
/** "Keep me signed in" was ticked on the sign-in form: the session cookie will last SESSION_DAYS. */
export const REMEMBER_COOKIE = 'matjar_merchant_remember';
/**
 * The half-signed-in state (docs/dashboard.md, "Two-step sign-in"): the phone code was right, the
 * authenticator app's code is still to come. Only this browser holds the challenge's token.
 */
export const CHALLENGE_COOKIE = 'matjar_merchant_2fa';
/** Sign-up's answers (store name, your name), kept until the code is confirmed. */
export const SIGNUP_COOKIE = 'matjar_merchant_signup';

/** `path`: the dashboard's cookies live under /merchant; the buyer's account's under /account. */
export function setCookie(
  ctx: AppContext,
  name: string,
  value: string,
  maxAgeSeconds: number | null,
  path: '/merchant' | '/account' = '/merchant',
): void {
  const secure = ctx.secure || ctx.deps.config.publicBaseUrl.startsWith('https:');
  const parts = [`${name}=${value}`, `Path=${path}`, 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export const clearCookie = (ctx: AppContext, name: string): void => setCookie(ctx, name, '', 0);

export function readCookie(ctx: AppContext, name: string): string {
  const value = ctx.cookies.get(name);
  return value && /^[A-Za-z0-9._~=-]{1,600}$/.test(value) ? value : '';
}

export function formField(ctx: AppContext, name: string): string {
  const body: unknown = ctx.request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * A POST from another site's page is refused (SameSite keeps the cookies back; this covers the forms that
 * need none). Browsers say where a request comes from in Sec-Fetch-Site and Origin; the dashboard's pages
 * send `Referrer-Policy: same-origin` so that Origin is a real value on their own forms, not `null`.
 */
export function crossSite(ctx: AppContext): boolean {
  const site = ctx.get('Sec-Fetch-Site');
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = ctx.get('Origin');
  if (!origin || origin === 'null') return false;
  try {
    return new URL(origin).host !== ctx.host;
  } catch {
    return true;
  }
}

export function publicContext(ctx: AppContext): PageContext {
  return pageContext(ctx, pickLocale(ctx));
}

export interface DashboardState {
  signedIn: SignedIn;
  membership: Membership;
  store: Store;
  shell: Omit<ShellContext, 'current'>;
}

export const dashboardOf = (ctx: AppContext): DashboardState => ctx.state.dashboard as DashboardState;

export function messagePage(p: PageContext, status: number, title: string, message: string) {
  return {
    status,
    html: publicPage(
      p,
      title,
      `<div class="card"><h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/merchant">${esc(p.t.home)}</a></p></div>`,
    ),
  };
}

/**
 * The guard of a signed-in page: a live session (else to the sign-in page), a store this person belongs
 * to, on a POST the form token, and the permission the page needs in the person's role.
 *
 * `readBody`: a body reader the app's parser leaves alone (the key upload's multipart, up to 6 MB). It
 * runs only once the session, the store, the role's permission and the request's origin are checked, so
 * nobody without a session (and no other site's page) makes the server read a large body; the form token
 * travels in that body, so it is checked right after (docs/security.md).
 */
export function signedIn(permission: Permission | null, opts: { readBody?: AppMiddleware } = {}) {
  return (deps: Deps): AppMiddleware[] => [
    async (ctx, next) => {
      const p = publicContext(ctx);
      const badForm = () => sendPage(ctx, messagePage(p, 403, p.t.badFormTitle, p.t.badForm));
      const found = await findSession(deps.knex, readCookie(ctx, SESSION_COOKIE));
      if (!found) {
        if (ctx.method === 'GET') {
          const back = ctx.path === '/merchant' ? '' : `?next=${encodeURIComponent(ctx.path)}`;
          return sendPage(ctx, { status: 302, location: `/merchant/signin${back}` });
        }
        return badForm();
      }
      const post = ctx.method === 'POST';
      if (post && crossSite(ctx)) return badForm();
      const tokenOk = () =>
        formTokenMatches(deps.appSecret, found.session, formField(ctx, '_csrf'), deps.appSecretPrevious);
      if (post && !opts.readBody && !tokenOk()) return badForm();
      if (!found.membership) {
        return sendPage(ctx, messagePage(p, 403, p.t.forbiddenTitle, p.t.noStore));
      }
      const store = await storeById(deps.knex, found.membership.store_id);
      if (!store) return sendPage(ctx, messagePage(p, 404, p.t.notFoundTitle, p.t.notFound));
      if (permission && !can(found.membership.role, permission, found.membership.grants)) {
        return sendPage(ctx, messagePage(p, 403, p.t.forbiddenTitle, p.t.forbidden));
      }
      if (post && opts.readBody) {
        await opts.readBody(ctx, () => Promise.resolve());
        if (!tokenOk()) return badForm();
      }
      const state: DashboardState = {
        signedIn: found,
        membership: found.membership,
        store,
        shell: {
          ...p,
          storeName: store.name,
          role: found.membership.role,
          grants: found.membership.grants,
          memberships: found.memberships,
          userName: found.user.name || `+${found.user.e164}`,
          formToken: formToken(deps.appSecret, found.session),
          noPaymentMethod: !(await hasPaymentMethod(deps.knex, store.id, deps.config)),
          digits: store.digits === 'arabic_indic' ? 'arabic_indic' : 'western',
          timeZone: store.time_zone ?? 'Asia/Riyadh',
        },
      };
      ctx.state.dashboard = state;
      await next();
    },
  ];
}
