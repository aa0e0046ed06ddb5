import { otpGuardsOf } from '../../shared/services/otp/factory';
import Joi from 'joi';
import type { Deps } from '../../shared/deps';
import {
  createStoreWithOwner,
  findUserById,
  findUserByPhone,
  membershipsOf,
  STORE_NAME_MAX,
} from '../../shared/services/dashboard/accounts';
import {
  createSession,
  findSession,
  revokeAllSessions,
  revokeSession,
  switchStore,
} from '../../shared/services/dashboard/sessions';
import {
  challengeAttemptsLeft,
  CHALLENGE_TTL_SECONDS,
  createChallenge,
  findChallenge,
  finishChallenge,
  reserveChallengeAttempt,
  SecondFactor,
  SignInChallenge,
} from '../../shared/services/dashboard/second-factor';
import {
  DASHBOARD_CODE_LENGTH,
  DashboardSignIn,
  StartOutcome,
} from '../../shared/services/dashboard/sign-in';
import type { AppContext, AppMiddleware } from '../context';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { codeView, secondFactorView, signInView, signUpView } from './auth-views';
import type { PageContext } from './layout';
import { sendPage } from './layout';
import {
  CHALLENGE_COOKIE,
  clearCookie,
  crossSite,
  dashboardOf,
  formField,
  messagePage,
  PENDING_COOKIE,
  publicContext,
  readCookie,
  SESSION_COOKIE,
  setCookie,
  SIGNUP_COOKIE,
  signedIn,
} from './session';

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
function withSignIn(deps: Deps): AppMiddleware[] {
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

const signInService = (ctx: AppContext): DashboardSignIn => ctx.state.dashboardSignIn as DashboardSignIn;
const secondFactorOf = (ctx: AppContext): SecondFactor => ctx.state.secondFactor as SecondFactor;

const langQuery = Joi.object<{ lang?: string; next?: string }, true>({
  lang: Joi.string().valid('ar', 'en').description('The page language; remembered in a cookie.'),
  next: Joi.string().max(300).description('Where to go once signed in (a /merchant page).'),
});

const phoneBody = {
  country_code: Joi.string().allow('').max(8),
  phone: Joi.string().allow('').max(40),
};

function startError(
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

function pendingOf(ctx: AppContext): { purpose: 'signin' | 'signup'; token: string } | null {
  const raw = readCookie(ctx, PENDING_COOKIE);
  const dot = raw.indexOf('.');
  const purpose = raw.slice(0, dot);
  if (dot < 0 || (purpose !== 'signin' && purpose !== 'signup')) return null;
  return { purpose, token: raw.slice(dot + 1) };
}

function signupOf(ctx: AppContext): { store_name: string; owner_name: string } | null {
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
function nextOf(ctx: AppContext): string | undefined {
  const next = typeof ctx.query.next === 'string' ? safeNext(ctx.query.next) : '/merchant';
  return next === '/merchant' ? undefined : next;
}

/** Only a dashboard page of ours: never an address elsewhere (an open redirect). */
function safeNext(next: string | undefined): string {
  return next && /^\/merchant(\/[A-Za-z0-9/_-]*)?$/.test(next) ? next : '/merchant';
}

async function startSession(ctx: AppContext, userId: number, storeId: number | null): Promise<void> {
  const token = await createSession(ctx.deps.knex, userId, storeId, ctx.get('User-Agent'));
  setCookie(ctx, SESSION_COOKIE, token, null);
  clearCookie(ctx, PENDING_COOKIE);
  clearCookie(ctx, SIGNUP_COOKIE);
  clearCookie(ctx, CHALLENGE_COOKIE);
}

/** The phone code was right and the person has a second factor: a challenge instead of a session. */
async function startChallenge(ctx: AppContext, input: Parameters<typeof createChallenge>[1]): Promise<void> {
  const token = await createChallenge(ctx.deps.knex, input);
  setCookie(ctx, CHALLENGE_COOKIE, token, CHALLENGE_TTL_SECONDS);
  clearCookie(ctx, PENDING_COOKIE);
  clearCookie(ctx, SIGNUP_COOKIE);
  const next =
    typeof ctx.query.next === 'string' ? `?next=${encodeURIComponent(safeNext(ctx.query.next))}` : '';
  sendPage(ctx, { status: 303, location: `/merchant/second-factor${next}` });
}

async function challengeOf(ctx: AppContext): Promise<SignInChallenge | null> {
  return findChallenge(ctx.deps.knex, readCookie(ctx, CHALLENGE_COOKIE));
}

const rateLimited = (ctx: AppContext, retryAfter: number): void => {
  ctx.set('Retry-After', String(retryAfter));
};

const page = (d: string) => ({ 200: htmlResponse(d) });

export const dashboardAuthRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/signin',
    interface: 'platform',
    operationId: 'dashboardSignInPage',
    summary: 'Merchant dashboard: sign-in page',
    description:
      'Phone (country code and national number, `autocomplete="tel-national"`) to receive a one-time code ' +
      'by WhatsApp, then SMS. Arabic or English: `?lang=`, then the cookie the switch sets, then ' +
      'Accept-Language. Already signed in: 302 to the dashboard.',
    request: { query: langQuery },
    responses: {
      ...page('The sign-in form.'),
      302: redirectResponse('Already signed in: to the dashboard.'),
    },
    handler: async (ctx, { query }) => {
      if (await findSession(ctx.deps.knex, readCookie(ctx, SESSION_COOKIE))) {
        return sendPage(ctx, { status: 302, location: safeNext(query.next) });
      }
      sendPage(ctx, {
        status: 200,
        html: signInView(publicContext(ctx), { country_code: '966', phone: '' }, null, nextOf(ctx)),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/signin',
    interface: 'platform',
    operationId: 'dashboardSignInStart',
    summary: 'Merchant dashboard: send a sign-in code',
    description:
      'Form fields `country_code`, `phone`. Sends a code to a phone that belongs to a store and goes to the ' +
      'code page (303). Any other valid phone gets the same answer, but no message (the form does not tell ' +
      'who is a merchant). Limits: per IP and per phone a day (shared with buyer codes) and a quarter hour.',
    guards: withSignIn,
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object(phoneBody).unknown(true),
    },
    responses: {
      303: redirectResponse('Code sent: to the code page.'),
      403: htmlResponse('A form posted from another site.'),
      422: htmlResponse('Not a valid phone for the country code (the form again, saying so).'),
      429: htmlResponse('Too many codes for this phone or IP (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = publicContext(ctx);
      const values = { country_code: formField(ctx, 'country_code'), phone: formField(ctx, 'phone') };
      const outcome = await signInService(ctx).start('signin', values, ctx.ip);
      if (outcome.kind !== 'sent') {
        const [status, message] = startError(ctx, p, outcome);
        return sendPage(ctx, { status, html: signInView(p, values, message, nextOf(ctx)) });
      }
      setCookie(ctx, PENDING_COOKIE, `signin.${outcome.sessionToken}`, ctx.deps.config.otpTtlSeconds);
      const next =
        typeof ctx.query.next === 'string' ? `?next=${encodeURIComponent(safeNext(ctx.query.next))}` : '';
      sendPage(ctx, { status: 303, location: `/merchant/code${next}` });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/signup',
    interface: 'platform',
    operationId: 'dashboardSignUpPage',
    summary: 'Merchant dashboard: create a store',
    description:
      'A new merchant gives a store name (input labelled "Store name"), optionally their name, and a phone; ' +
      'after the one-time code the store exists on the free plan with them as its owner.',
    request: { query: langQuery },
    responses: page('The sign-up form.'),
    handler: (ctx) => {
      sendPage(ctx, {
        status: 200,
        html: signUpView(publicContext(ctx), {
          store_name: '',
          owner_name: '',
          country_code: '966',
          phone: '',
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/signup',
    interface: 'platform',
    operationId: 'dashboardSignUpStart',
    summary: 'Merchant dashboard: send a sign-up code',
    description:
      'Form fields `store_name`, `owner_name` (optional), `country_code`, `phone`; 303 to the code page.',
    guards: withSignIn,
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({
        ...phoneBody,
        store_name: Joi.string().allow('').max(400),
        owner_name: Joi.string().allow('').max(400),
      }).unknown(true),
    },
    responses: {
      303: redirectResponse('Code sent: to the code page.'),
      403: htmlResponse('A form posted from another site.'),
      422: htmlResponse('A missing store name or a bad phone (the form again, saying so).'),
      429: htmlResponse('Too many codes for this phone or IP (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = publicContext(ctx);
      const values = {
        store_name: formField(ctx, 'store_name').trim(),
        owner_name: formField(ctx, 'owner_name').trim().slice(0, 200),
        country_code: formField(ctx, 'country_code'),
        phone: formField(ctx, 'phone'),
      };
      if (!values.store_name || values.store_name.length > STORE_NAME_MAX) {
        return sendPage(ctx, { status: 422, html: signUpView(p, values, { store_name: p.t.errStoreName }) });
      }
      const outcome = await signInService(ctx).start('signup', values, ctx.ip);
      if (outcome.kind !== 'sent') {
        const [status, message] = startError(ctx, p, outcome);
        return sendPage(ctx, { status, html: signUpView(p, values, { phone: message }) });
      }
      const ttl = ctx.deps.config.otpTtlSeconds;
      setCookie(ctx, PENDING_COOKIE, `signup.${outcome.sessionToken}`, ttl);
      const details = Buffer.from(JSON.stringify({ s: values.store_name, o: values.owner_name })).toString(
        'base64url',
      );
      setCookie(ctx, SIGNUP_COOKIE, details, ttl);
      sendPage(ctx, { status: 303, location: '/merchant/code' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/code',
    interface: 'platform',
    operationId: 'dashboardCodePage',
    summary: 'Merchant dashboard: enter the one-time code',
    description:
      'The code input (`autocomplete="one-time-code"`) for the code just sent; a new code by SMS after the ' +
      'cooldown. Without a pending code: 302 to the sign-in page.',
    guards: withSignIn,
    request: { query: langQuery },
    responses: { ...page('The code form.'), 302: redirectResponse('No pending code: to sign-in.') },
    handler: async (ctx) => {
      const pending = pendingOf(ctx);
      const masked = pending ? await signInService(ctx).pendingPhone(pending.token) : null;
      if (!pending || !masked) return sendPage(ctx, { status: 302, location: '/merchant/signin' });
      const back = pending.purpose === 'signup' ? '/merchant/signup' : '/merchant/signin';
      sendPage(ctx, { status: 200, html: codeView(publicContext(ctx), masked, back, { next: nextOf(ctx) }) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/code',
    interface: 'platform',
    operationId: 'dashboardCodeVerify',
    summary: 'Merchant dashboard: confirm the code',
    description:
      `Form field \`code\` (${DASHBOARD_CODE_LENGTH} digits). Right: the session cookie is set and the answer ` +
      'is 303 to the dashboard (a sign-up first creates the store, free plan, with this person as owner); ' +
      'for a person with an authenticator app, 303 to the second-factor page instead (no session yet). ' +
      'Wrong: the form again with the attempts left (3 per code). Codes checked are limited per IP and per ' +
      'phone (429 with Retry-After).',
    guards: withSignIn,
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ code: Joi.string().allow('').max(20) }).unknown(true),
    },
    responses: {
      303: redirectResponse(
        'Signed in: to the dashboard; or to the second-factor page; or back to sign-in when the code expired.',
      ),
      403: htmlResponse('A form posted from another site.'),
      422: htmlResponse('A wrong code (the form again with the attempts left).'),
      429: htmlResponse('Too many codes checked for this phone or IP, or today’s wrong codes used up.'),
    },
    handler: async (ctx) => {
      const p = publicContext(ctx);
      const pending = pendingOf(ctx);
      if (!pending) return sendPage(ctx, { status: 303, location: '/merchant/signin' });
      const back = pending.purpose === 'signup' ? '/merchant/signup' : '/merchant/signin';
      const code = formField(ctx, 'code').trim();
      const masked = (await signInService(ctx).pendingPhone(pending.token)) ?? '';
      if (!new RegExp(`^\\d{${DASHBOARD_CODE_LENGTH}}$`).test(code)) {
        if (!masked) return sendPage(ctx, { status: 303, location: back });
        return sendPage(ctx, {
          status: 422,
          html: codeView(p, masked, back, { next: nextOf(ctx), error: p.t.errCodeFormat }),
        });
      }
      const signup = pending.purpose === 'signup' ? signupOf(ctx) : null;
      if (pending.purpose === 'signup' && !signup) return sendPage(ctx, { status: 303, location: back });
      const outcome = await signInService(ctx).verify(pending.token, code, ctx.ip);
      switch (outcome.kind) {
        case 'wrong':
          return sendPage(ctx, {
            status: 422,
            html: codeView(p, masked, back, {
              next: nextOf(ctx),
              error: p.t.errWrongCode(outcome.remaining),
            }),
          });
        case 'max_attempts':
          return sendPage(ctx, {
            status: 422,
            html: codeView(p, masked, back, { next: nextOf(ctx), error: p.t.errMaxAttempts }),
          });
        case 'locked':
          rateLimited(ctx, outcome.retryAfter);
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, back, { next: nextOf(ctx), error: p.t.errPhoneLocked }),
          });
        case 'rate_limited':
          rateLimited(ctx, outcome.retryAfter);
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, back, {
              next: nextOf(ctx),
              error: p.t.errTooManyChecks(outcome.retryAfter),
            }),
          });
        case 'expired':
          clearCookie(ctx, PENDING_COOKIE);
          return sendPage(ctx, { status: 303, location: back });
        case 'ok':
          break;
      }
      const known = await findUserByPhone(ctx.deps.knex, outcome.phone.e164);
      const twoStep = known ? await secondFactorOf(ctx).enabled(known.id) : false;
      if (signup && known && twoStep) {
        // A new store for someone with an authenticator app: created once the app's code is confirmed.
        return startChallenge(ctx, {
          userId: known.id,
          storeId: null,
          signup: { storeName: signup.store_name, ownerName: signup.owner_name },
        });
      }
      if (signup) {
        const { store, user } = await createStoreWithOwner(ctx.deps.knex, {
          storeName: signup.store_name,
          ownerName: signup.owner_name,
          phone: outcome.phone,
        });
        await startSession(ctx, user.id, store.id);
        return sendPage(ctx, { status: 303, location: '/merchant' });
      }
      const user = known;
      const memberships = user ? await membershipsOf(ctx.deps.knex, user.id) : [];
      if (!user || memberships.length === 0) {
        clearCookie(ctx, PENDING_COOKIE);
        return sendPage(ctx, messagePage(p, 403, p.t.forbiddenTitle, p.t.noStore));
      }
      if (twoStep) return startChallenge(ctx, { userId: user.id, storeId: memberships[0].store_id });
      await startSession(ctx, user.id, memberships[0].store_id);
      const next = typeof ctx.query.next === 'string' ? ctx.query.next : undefined;
      sendPage(ctx, { status: 303, location: safeNext(next) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/code/resend',
    interface: 'platform',
    operationId: 'dashboardCodeResend',
    summary: 'Merchant dashboard: a new code by SMS',
    description: 'After the cooldown (OTP_RESEND_COOLDOWN_SECONDS) and within the per-phone resend limit.',
    guards: withSignIn,
    request: { bodyTypes: ['application/x-www-form-urlencoded'] },
    responses: {
      200: htmlResponse('The code page, saying a new code is on its way.'),
      303: redirectResponse('No pending code: to sign-in.'),
      403: htmlResponse('A form posted from another site.'),
      429: htmlResponse('The cooldown or the resend limit (the code page, saying so, with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = publicContext(ctx);
      const pending = pendingOf(ctx);
      if (!pending) return sendPage(ctx, { status: 303, location: '/merchant/signin' });
      const back = pending.purpose === 'signup' ? '/merchant/signup' : '/merchant/signin';
      const outcome = await signInService(ctx).resend(pending.token, ctx.ip);
      const masked = (await signInService(ctx).pendingPhone(pending.token)) ?? '';
      switch (outcome.kind) {
        case 'expired':
          return sendPage(ctx, { status: 303, location: back });
        case 'sent':
          return sendPage(ctx, { status: 200, html: codeView(p, masked, back, { notice: p.t.newCodeSent }) });
        case 'cooldown':
          rateLimited(ctx, outcome.wait);
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, back, { next: nextOf(ctx), error: p.t.errCooldown(outcome.wait) }),
          });
        case 'rate_limited':
          rateLimited(ctx, outcome.retryAfter);
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, back, {
              next: nextOf(ctx),
              error: p.t.errRateLimited(outcome.retryAfter),
            }),
          });
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/second-factor',
    interface: 'platform',
    operationId: 'dashboardSecondFactorPage',
    summary: 'Merchant dashboard: the authenticator app’s code',
    description:
      'After the phone code, for a person who switched on an authenticator app: the app’s 6-digit code ' +
      '(`autocomplete="one-time-code"`) or a recovery code. Without a live challenge in this browser: 302 ' +
      'to the sign-in page.',
    guards: withSignIn,
    request: { query: langQuery },
    responses: { ...page('The second-factor form.'), 302: redirectResponse('No challenge: to sign-in.') },
    handler: async (ctx) => {
      if (!(await challengeOf(ctx))) return sendPage(ctx, { status: 302, location: '/merchant/signin' });
      sendPage(ctx, { status: 200, html: secondFactorView(publicContext(ctx), { next: nextOf(ctx) }) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/second-factor',
    interface: 'platform',
    operationId: 'dashboardSecondFactorVerify',
    summary: 'Merchant dashboard: confirm the second factor',
    description:
      'Form field `code` (the authenticator app’s current code; each is accepted once) or `recovery_code` ' +
      '(one-time). Right: the session starts, 303 to the dashboard. Wrong: the form again with the ' +
      'attempts left (5 per challenge; then sign in again). Checks are limited per IP and per phone.',
    guards: withSignIn,
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({
        code: Joi.string().allow('').max(20),
        recovery_code: Joi.string().allow('').max(40),
      }).unknown(true),
    },
    responses: {
      303: redirectResponse('Signed in: to the dashboard; or to sign-in when the challenge is over.'),
      403: htmlResponse('A form posted from another site.'),
      422: htmlResponse('A wrong code (the form again with the attempts left, or the challenge spent).'),
      429: htmlResponse('Too many codes checked for this phone or IP (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = publicContext(ctx);
      const knex = ctx.deps.knex;
      const challenge = await challengeOf(ctx);
      const user = challenge ? await findUserById(knex, challenge.merchant_user_id) : undefined;
      if (!challenge || !user) {
        clearCookie(ctx, CHALLENGE_COOKIE);
        return sendPage(ctx, { status: 303, location: '/merchant/signin' });
      }
      const code = formField(ctx, 'code').replace(/\s/g, '');
      const recovery = formField(ctx, 'recovery_code').trim();
      if (!/^\d{6}$/.test(code) && !recovery) {
        return sendPage(ctx, {
          status: 422,
          html: secondFactorView(p, { next: nextOf(ctx), error: p.t.errSecondFactorFormat }),
        });
      }
      const limited = await signInService(ctx).throttleCheck(ctx.ip, user.e164);
      if (limited) {
        rateLimited(ctx, limited.retryAfter);
        return sendPage(ctx, {
          status: 429,
          html: secondFactorView(p, { next: nextOf(ctx), error: p.t.errTooManyChecks(limited.retryAfter) }),
        });
      }
      if (!(await reserveChallengeAttempt(knex, challenge.id))) {
        clearCookie(ctx, CHALLENGE_COOKIE);
        return sendPage(ctx, { status: 303, location: '/merchant/signin' });
      }
      const factors = secondFactorOf(ctx);
      const right = /^\d{6}$/.test(code)
        ? await factors.verifyCode(user.id, code)
        : await factors.useRecoveryCode(user.id, recovery);
      if (!right) {
        const left = await challengeAttemptsLeft(knex, challenge.id);
        if (left === 0) {
          clearCookie(ctx, CHALLENGE_COOKIE);
          return sendPage(ctx, messagePage(p, 422, p.t.secondFactorTitle, p.t.errSecondFactorSpent));
        }
        return sendPage(ctx, {
          status: 422,
          html: secondFactorView(p, { next: nextOf(ctx), error: p.t.errSecondFactorWrong(left) }),
        });
      }
      // One challenge, one session, however many requests carry the right code at once.
      if (!(await finishChallenge(knex, challenge.id))) {
        clearCookie(ctx, CHALLENGE_COOKIE);
        return sendPage(ctx, { status: 303, location: '/merchant/signin' });
      }
      if (challenge.signup_store_name) {
        const { store } = await createStoreWithOwner(knex, {
          storeName: challenge.signup_store_name,
          ownerName: challenge.signup_owner_name ?? '',
          phone: { countryCode: user.country_code, national: user.phone, e164: user.e164 },
        });
        await startSession(ctx, user.id, store.id);
        return sendPage(ctx, { status: 303, location: '/merchant' });
      }
      const memberships = await membershipsOf(knex, user.id);
      if (memberships.length === 0) {
        clearCookie(ctx, CHALLENGE_COOKIE);
        return sendPage(ctx, messagePage(p, 403, p.t.forbiddenTitle, p.t.noStore));
      }
      const storeId =
        memberships.find((m) => m.store_id === challenge.store_id)?.store_id ?? memberships[0].store_id;
      await startSession(ctx, user.id, storeId);
      const next = typeof ctx.query.next === 'string' ? ctx.query.next : undefined;
      sendPage(ctx, { status: 303, location: safeNext(next) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/signout',
    interface: 'platform',
    operationId: 'dashboardSignOut',
    summary: 'Merchant dashboard: sign out',
    description:
      'Ends this browser’s session (form field `_csrf`, the page’s form token). With `everywhere=1`, every ' +
      'session of this person in every browser. 303 to the sign-in page.',
    guards: signedIn(null),
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ _csrf: Joi.string().max(200), everywhere: Joi.string().max(5) }).unknown(true),
    },
    responses: {
      303: redirectResponse('Signed out: to the sign-in page.'),
      403: htmlResponse('Missing or wrong form token, or a form from another site.'),
    },
    handler: async (ctx) => {
      const { signedIn: s } = dashboardOf(ctx);
      if (formField(ctx, 'everywhere') === '1') await revokeAllSessions(ctx.deps.knex, s.user.id);
      else await revokeSession(ctx.deps.knex, s.session.id);
      clearCookie(ctx, SESSION_COOKIE);
      sendPage(ctx, { status: 303, location: '/merchant/signin' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/switch',
    interface: 'platform',
    operationId: 'dashboardSwitchStore',
    summary: 'Merchant dashboard: look at another of my stores',
    description: 'Form fields `store_id` and `_csrf`; 303 to that store’s home.',
    guards: signedIn(null),
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ _csrf: Joi.string().max(200), store_id: Joi.string().max(12) }).unknown(true),
    },
    responses: {
      303: redirectResponse('To the chosen store’s home.'),
      403: htmlResponse('Missing or wrong form token, or not a store of this person.'),
    },
    handler: async (ctx) => {
      const { signedIn: s, shell } = dashboardOf(ctx);
      const ok = await switchStore(ctx.deps.knex, s, Number(formField(ctx, 'store_id')));
      if (!ok) return sendPage(ctx, messagePage(shell, 403, shell.t.forbiddenTitle, shell.t.forbidden));
      sendPage(ctx, { status: 303, location: '/merchant' });
    },
  }),
];
