import Joi from 'joi';
import {
  createStoreWithOwner,
  findUserByPhone,
  membershipsOf,
  STORE_NAME_MAX,
} from '../../../../shared/services/staff/accounts';
import { findSession } from '../../../../shared/services/staff/sessions';
import { DASHBOARD_CODE_LENGTH } from '../../../../shared/services/staff/sign-in';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { codeView, signInView, signUpView } from './view';
import { sendPage } from '../../layout';
import {
  clearCookie,
  formField,
  messagePage,
  PENDING_COOKIE,
  REMEMBER_COOKIE,
  publicContext,
  readCookie,
  SESSION_COOKIE,
  setCookie,
  SIGNUP_COOKIE,
} from '../../session';
import {
  withSignIn,
  signInService,
  secondFactorOf,
  langQuery,
  phoneBody,
  startError,
  pendingOf,
  signupOf,
  nextOf,
  safeNext,
  startSession,
  startChallenge,
  rateLimited,
  page,
} from './flow';

/** Sign-in, sign-up and the phone code (the flow is flow.ts). */

export const dashboardSignInRoutes = [
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
      const values = {
        country_code: formField(ctx, 'country_code'),
        phone: formField(ctx, 'phone'),
        remember: formField(ctx, 'remember') === '1',
      };
      const outcome = await signInService(ctx).start('signin', values, ctx.ip, p.locale);
      if (outcome.kind !== 'sent') {
        const [status, message] = startError(ctx, p, outcome);
        return sendPage(ctx, { status, html: signInView(p, values, message, nextOf(ctx)) });
      }
      setCookie(ctx, PENDING_COOKIE, `signin.${outcome.sessionToken}`, ctx.deps.config.otpTtlSeconds);
      // "Keep me signed in": the session cookie this sign-in ends with outlives the browser (flow.ts).
      if (values.remember) setCookie(ctx, REMEMBER_COOKIE, '1', ctx.deps.config.otpTtlSeconds);
      else clearCookie(ctx, REMEMBER_COOKIE);
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
      const outcome = await signInService(ctx).start('signup', values, ctx.ip, p.locale);
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
      const outcome = await signInService(ctx).resend(pending.token, ctx.ip, p.locale);
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
];
