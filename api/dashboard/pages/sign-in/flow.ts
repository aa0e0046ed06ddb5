import { otpGuardsOf } from '../../../../shared/services/otp/factory';
import Joi from 'joi';
import type { Deps } from '../../../../shared/deps';
import { createSession, SESSION_DAYS } from '../../../../shared/services/staff/sessions';
import {
  CHALLENGE_TTL_SECONDS,
  createChallenge,
  findChallenge,
  SecondFactor,
  SignInChallenge,
} from '../../../../shared/services/staff/second-factor';
import { DashboardSignIn, StartOutcome } from '../../../../shared/services/staff/sign-in';
import type { AppContext, AppMiddleware } from '../../../context';
import { htmlResponse } from '../../../openapi/components';
import type { PageContext } from '../../layout';
import { sendPage } from '../../layout';
import {
  CHALLENGE_COOKIE,
  clearCookie,
  crossSite,
  messagePage,
  PENDING_COOKIE,
  REMEMBER_COOKIE,
  publicContext,
  readCookie,
  SESSION_COOKIE,
  setCookie,
  SIGNUP_COOKIE,
} from '../../session';

/**
 * Sign-in and sign-up by phone and a one-time code. The code's OTP session token waits in a short-lived
 * cookie between the phone page and the code page (so it never appears in an address or a form), with
 * the purpose in front: `signin.ots_…` or `signup.ots_…`.
 *
 * A person who switched on an authenticator app (docs/dashboard.md, "Two-step sign-in") gets no session
 * from the phone code alone: it opens a challenge of a few minutes, held by this browser's cookie only, and
 * the session starts once the app's code (or a recovery code) is confirmed on /merchant/second-factor.
 */

/** The sign-in service, built once per app and handed to the handlers through ctx.state. */
export function withSignIn(deps: Deps): AppMiddleware[] {
  const limiter = deps.services.rateLimiter;
  const service = new DashboardSignIn({
    config: deps.config,
    knex: deps.knex,
    queues: deps.queues,
    appSecret: deps.appSecret,
    appSecretPrevious: deps.appSecretPrevious,
    cipher: deps.cipher,
    consumeLimit: async (def, key, cost) => {
      await limiter.enforce([{ def, key, cost }]);
    },
    guards: otpGuardsOf(deps),
  });
  const secondFactor = new SecondFactor({ knex: deps.knex, cipher: deps.cipher, appSecret: deps.appSecret });
  return [
    async (ctx, next) => {
      // A POST from another site's page is refused before anything is sent or checked.
      if (ctx.method === 'POST' && crossSite(ctx)) {
        const p = publicContext(ctx);
        return sendPage(ctx, messagePage(p, 403, p.t.badFormTitle, p.t.badForm));
      }
      ctx.state.dashboardSignIn = service;
      ctx.state.secondFactor = secondFactor;
      await next();
    },
  ];
}

export const signInService = (ctx: AppContext): DashboardSignIn =>
  ctx.state.dashboardSignIn as DashboardSignIn;
export const secondFactorOf = (ctx: AppContext): SecondFactor => ctx.state.secondFactor as SecondFactor;

export const langQuery = Joi.object<{ lang?: string; next?: string }, true>({
  lang: Joi.string().valid('ar', 'en').description('The page language; remembered in a cookie.'),
  next: Joi.string().max(300).description('Where to go once signed in (a /merchant page).'),
});

export const phoneBody = {
  country_code: Joi.string().allow('').max(8),
  phone: Joi.string().allow('').max(40),
};

export function startError(
  ctx: AppContext,
  p: PageContext,
  outcome: Exclude<StartOutcome, { kind: 'sent' }>,
): [number, string] {
  switch (outcome.kind) {
    case 'invalid_phone':
      return [422, p.t.errInvalidPhone];
    case 'rate_limited':
      ctx.set('Retry-After', String(outcome.retryAfter));
      return [429, p.t.errRateLimited(outcome.retryAfter)];
  }
}

export function pendingOf(ctx: AppContext): { purpose: 'signin' | 'signup'; token: string } | null {
  const raw = readCookie(ctx, PENDING_COOKIE);
  const dot = raw.indexOf('.');
  const purpose = raw.slice(0, dot);
  if (dot < 0 || (purpose !== 'signin' && purpose !== 'signup')) return null;
  return { purpose, token: raw.slice(dot + 1) };
}

export function signupOf(ctx: AppContext): { store_name: string; owner_name: string } | null {
  try {
    const parsed = JSON.parse(Buffer.from(readCookie(ctx, SIGNUP_COOKIE), 'base64url').toString('utf8')) as {
      s?: unknown;
      o?: unknown;
    };
    if (typeof parsed.s !== 'string' || !parsed.s.trim()) return null;
    return { store_name: parsed.s, owner_name: typeof parsed.o === 'string' ? parsed.o : '' };
  } catch {
    return null;
  }
}

/** The page asked for before signing in, when it is one of ours. */
export function nextOf(ctx: AppContext): string | undefined {
  const next = typeof ctx.query.next === 'string' ? safeNext(ctx.query.next) : '/merchant';
  return next === '/merchant' ? undefined : next;
}

/** Only a dashboard page of ours: never an address elsewhere (an open redirect). */
export function safeNext(next: string | undefined): string {
  return next && /^\/merchant(\/[A-Za-z0-9/_-]*)?$/.test(next) ? next : '/merchant';
}

/**
 * Signs the person in. Asked to "keep me signed in" (the sign-in form's box, carried in REMEMBER_COOKIE
 * through the code and any second step), the cookie lasts the session's SESSION_DAYS and survives closing
 * the browser; otherwise it is a browser-session cookie. Either way the session is listed, and revocable,
 * on the security page.
 */
export async function startSession(ctx: AppContext, userId: number, storeId: number | null): Promise<void> {
  const remember = readCookie(ctx, REMEMBER_COOKIE) === '1';
  const token = await createSession(ctx.deps.knex, userId, storeId, ctx.get('User-Agent'));
  setCookie(ctx, SESSION_COOKIE, token, remember ? SESSION_DAYS * 86_400 : null);
  if (remember) clearCookie(ctx, REMEMBER_COOKIE);
  clearCookie(ctx, PENDING_COOKIE);
  clearCookie(ctx, SIGNUP_COOKIE);
  clearCookie(ctx, CHALLENGE_COOKIE);
}

/** The phone code was right and the person has a second factor: a challenge instead of a session. */
export async function startChallenge(
  ctx: AppContext,
  input: Parameters<typeof createChallenge>[1],
): Promise<void> {
  const token = await createChallenge(ctx.deps.knex, input);
  setCookie(ctx, CHALLENGE_COOKIE, token, CHALLENGE_TTL_SECONDS);
  clearCookie(ctx, PENDING_COOKIE);
  clearCookie(ctx, SIGNUP_COOKIE);
  const next =
    typeof ctx.query.next === 'string' ? `?next=${encodeURIComponent(safeNext(ctx.query.next))}` : '';
  sendPage(ctx, { status: 303, location: `/merchant/second-factor${next}` });
}

export async function challengeOf(ctx: AppContext): Promise<SignInChallenge | null> {
  return findChallenge(ctx.deps.knex, readCookie(ctx, CHALLENGE_COOKIE));
}

export const rateLimited = (ctx: AppContext, retryAfter: number): void => {
  ctx.set('Retry-After', String(retryAfter));
};

export const page = (d: string) => ({ 200: htmlResponse(d) });
