import type { Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { cachedStore } from '../../shared/services/catalogue/store-cache';
import {
  buyerFormToken,
  buyerFormTokenMatches,
  findBuyerSession,
  type BuyerSession,
} from '../../shared/services/account/sessions';
import { storeByVerifiedDomain } from '../../shared/services/stores/lookup';
import type { AppContext, AppMiddleware } from '../context';
import { sendPage } from '../dashboard/layout';
import { crossSite, formField, readCookie } from '../dashboard/session';
import { pickLocale, type Locale } from '../pay/i18n';
import { ACCOUNT_STRINGS, type AccountStrings } from './i18n';
import { messagePage } from './view';

/**
 * The buyer's account's cookies and guard (docs/account.md). The same rules as the dashboard's
 * (api/dashboard/session.ts, whose cookie writer and cross-site check this reuses): HttpOnly,
 * SameSite=Strict, Secure over HTTPS, scoped to /account; every POST from one of our own pages (Origin /
 * Sec-Fetch-Site) and, signed in, carrying the session's form token.
 */
export const ACCOUNT_COOKIE = 'matjar_account';
/** The pending phone code's OTP session token, between the phone step and the code step. */
export const ACCOUNT_PENDING_COOKIE = 'matjar_account_otp';

export interface AccountPage {
  locale: Locale;
  t: AccountStrings;
  switchHref: string;
  /** The verified store domain the account is opened on (its name brands the page), else null. */
  store: Store | null;
}

export interface AccountState {
  session: BuyerSession;
  formToken: string;
}

export const accountOf = (ctx: AppContext): AccountState => ctx.state.account as AccountState;

/** The store whose verified domain this request came to (Host, port ignored), as the Storefront finds it. */
export async function domainStore(ctx: AppContext): Promise<Store | null> {
  const host = ctx.hostname.toLowerCase();
  if (!host || host.length > 253) return null;
  const platform = new URL(ctx.deps.config.publicBaseUrl).hostname.toLowerCase();
  if (host === platform) return null;
  return (await cachedStore(ctx.deps, `host:${host}`, (knex) => storeByVerifiedDomain(knex, host))) ?? null;
}

export async function accountPage(ctx: AppContext): Promise<AccountPage> {
  const locale = pickLocale(ctx);
  const query = new URLSearchParams(ctx.querystring);
  query.set('lang', locale === 'ar' ? 'en' : 'ar');
  return {
    locale,
    t: ACCOUNT_STRINGS[locale],
    switchHref: `${ctx.path}?${query.toString()}`,
    store: await domainStore(ctx),
  };
}

/**
 * Where the account lives for this request: on a verified store domain, that domain (the e-mail's link
 * comes back to it); anywhere else PUBLIC_BASE_URL's (a Host header never decides where a link points).
 */
export function accountUrl(ctx: AppContext, p: AccountPage): string {
  if (p.store) return `${ctx.protocol}://${ctx.host}/account`;
  return `${ctx.deps.config.publicBaseUrl}/account`;
}

/** A POST from another site's page, refused before anything is sent or checked. */
export function refuseCrossSite(): (deps: Deps) => AppMiddleware[] {
  return () => [
    async (ctx, next) => {
      if (ctx.method === 'POST' && crossSite(ctx)) {
        const p = await accountPage(ctx);
        return sendPage(ctx, messagePage(p, 403, p.t.badFormTitle, p.t.badForm));
      }
      await next();
    },
  ];
}

/**
 * The guard of a signed-in request: a live session, else (GET) the sign-in page at /account or (POST) 403;
 * a POST must come from our own page and carry the session's form token.
 */
export function accountSignedIn() {
  return (deps: Deps): AppMiddleware[] => [
    async (ctx, next) => {
      const session = await findBuyerSession(deps.knex, readCookie(ctx, ACCOUNT_COOKIE));
      if (!session) {
        if (ctx.method === 'GET') return sendPage(ctx, { status: 302, location: '/account' });
        const p = await accountPage(ctx);
        return sendPage(ctx, messagePage(p, 403, p.t.badFormTitle, p.t.badForm));
      }
      if (ctx.method === 'POST') {
        const ok =
          !crossSite(ctx) &&
          buyerFormTokenMatches(deps.appSecret, session, formField(ctx, '_csrf'), deps.appSecretPrevious);
        if (!ok) {
          const p = await accountPage(ctx);
          return sendPage(ctx, messagePage(p, 403, p.t.badFormTitle, p.t.badForm));
        }
      }
      const state: AccountState = { session, formToken: buyerFormToken(deps.appSecret, session) };
      ctx.state.account = state;
      await next();
    },
  ];
}
