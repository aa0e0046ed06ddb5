import Joi from 'joi';
import type { Deps } from '../../shared/deps';
import {
  consumeEmailLink,
  EMAIL_LINK_MINUTES,
  normalEmail,
  startEmailSignIn,
} from '../../shared/services/account/email-sign-in';
import {
  createBuyerSession,
  revokeBuyerSession,
  revokeIdentitySessions,
  type BuyerIdentity,
} from '../../shared/services/account/sessions';
import { DashboardSignIn } from '../../shared/services/staff/sign-in';
import { otpGuardsOf } from '../../shared/services/otp/factory';
import type { AppContext, AppMiddleware } from '../context';
import { DASHBOARD_STRINGS } from '../dashboard/i18n';
import { sendPage } from '../dashboard/layout';
import { clearCookie, formField, readCookie, setCookie } from '../dashboard/session';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import {
  ACCOUNT_COOKIE,
  ACCOUNT_PENDING_COOKIE,
  accountOf,
  accountPage,
  accountSignedIn,
  accountUrl,
  refuseCrossSite,
} from './session';
import { codeView, linkSentView, messagePage, signInView } from './view';
import { enforce, form, forbidden, langQuery, page } from './forms';

/** Sign-in by phone code or e-mailed link, and sign-out (docs/account.md, "Signing in"). */

/** The sign-in service on the account's own OTP channel, built once per app (api/dashboard's flow). */
function withAccountSignIn(deps: Deps): AppMiddleware[] {
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
    channel: 'account',
  });
  return [
    ...refuseCrossSite()(deps),
    async (ctx, next) => {
      ctx.state.accountSignIn = service;
      await next();
    },
  ];
}
const signInOf = (ctx: AppContext): DashboardSignIn => ctx.state.accountSignIn as DashboardSignIn;

async function startSession(ctx: AppContext, identity: BuyerIdentity): Promise<void> {
  const token = await createBuyerSession(ctx.deps.knex, identity, ctx.get('User-Agent'));
  setCookie(ctx, ACCOUNT_COOKIE, token, null, '/account');
  clearCookie(ctx, ACCOUNT_PENDING_COOKIE);
  sendPage(ctx, { status: 303, location: '/account' });
}

export const accountSignInRoutes = [
  defineRoute({
    method: 'post',
    path: '/account/signin/phone',
    interface: 'platform',
    operationId: 'accountSignInPhone',
    summary: 'Buyer account: send a sign-in code',
    description:
      'Form fields `country_code`, `phone`. Any valid phone gets a 6-digit code through the platform’s ' +
      'messaging (WhatsApp, then SMS) and the answer is 303 to the code page. The platform’s OTP limits ' +
      'apply (per IP and per phone, shared with every other sign-in).',
    guards: withAccountSignIn,
    request: form({ country_code: Joi.string().allow('').max(8), phone: Joi.string().allow('').max(40) }),
    responses: {
      303: redirectResponse('Code sent: to the code page.'),
      ...forbidden,
      422: htmlResponse('Not a valid phone (the sign-in page again, saying so).'),
      429: htmlResponse('Too many codes for this phone or IP (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = await accountPage(ctx);
      const values = { country_code: formField(ctx, 'country_code'), phone: formField(ctx, 'phone') };
      const outcome = await signInOf(ctx).start('signin', values, ctx.ip);
      if (outcome.kind !== 'sent') {
        const d = DASHBOARD_STRINGS[p.locale];
        const status = outcome.kind === 'invalid_phone' ? 422 : 429;
        if (outcome.kind === 'rate_limited') ctx.set('Retry-After', String(outcome.retryAfter));
        const message =
          outcome.kind === 'invalid_phone' ? d.errInvalidPhone : d.errRateLimited(outcome.retryAfter);
        return sendPage(ctx, {
          status,
          html: signInView(p, { phone: values, email: '', phoneError: message }),
        });
      }
      setCookie(ctx, ACCOUNT_PENDING_COOKIE, outcome.sessionToken, ctx.deps.config.otpTtlSeconds, '/account');
      sendPage(ctx, { status: 303, location: '/account/code' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/account/code',
    interface: 'platform',
    operationId: 'accountCodePage',
    summary: 'Buyer account: enter the code',
    description: 'The `one-time-code` input for the code just sent. Without a pending code: 302 to /account.',
    guards: withAccountSignIn,
    request: { query: langQuery },
    responses: { ...page('The code form.'), 302: redirectResponse('No pending code: to /account.') },
    handler: async (ctx) => {
      const masked = await signInOf(ctx).pendingPhone(readCookie(ctx, ACCOUNT_PENDING_COOKIE));
      if (!masked) return sendPage(ctx, { status: 302, location: '/account' });
      sendPage(ctx, { status: 200, html: codeView(await accountPage(ctx), masked) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/code',
    interface: 'platform',
    operationId: 'accountCodeVerify',
    summary: 'Buyer account: confirm the code',
    description:
      'Form field `code`. Right: the session cookie (HttpOnly, SameSite=Strict, path /account) and 303 to ' +
      '/account. Wrong: the code page again with the error and the attempts left (3 per code; at most 10 ' +
      'wrong codes per phone and day across every sign-in).',
    guards: withAccountSignIn,
    request: form({ code: Joi.string().allow('').max(20) }),
    responses: {
      303: redirectResponse('Signed in, or the code expired: to /account.'),
      ...forbidden,
      422: htmlResponse('A wrong code (the code page again, saying so).'),
      429: htmlResponse('Too many codes checked, or today’s wrong codes used up.'),
    },
    handler: async (ctx) => {
      const p = await accountPage(ctx);
      const d = DASHBOARD_STRINGS[p.locale];
      const pending = readCookie(ctx, ACCOUNT_PENDING_COOKIE);
      const service = signInOf(ctx);
      const masked = await service.pendingPhone(pending);
      if (!masked) return sendPage(ctx, { status: 303, location: '/account' });
      const code = formField(ctx, 'code').trim();
      if (!/^\d{4,8}$/.test(code)) {
        return sendPage(ctx, { status: 422, html: codeView(p, masked, { error: d.errCodeFormat }) });
      }
      const outcome = await service.verify(pending, code, ctx.ip);
      switch (outcome.kind) {
        case 'ok':
          return startSession(ctx, { kind: 'phone', value: outcome.phone.e164 });
        case 'wrong':
          return sendPage(ctx, {
            status: 422,
            html: codeView(p, masked, { error: d.errWrongCode(outcome.remaining) }),
          });
        case 'max_attempts':
          return sendPage(ctx, { status: 422, html: codeView(p, masked, { error: d.errMaxAttempts }) });
        case 'locked':
          ctx.set('Retry-After', String(outcome.retryAfter));
          return sendPage(ctx, { status: 429, html: codeView(p, masked, { error: d.errPhoneLocked }) });
        case 'rate_limited':
          ctx.set('Retry-After', String(outcome.retryAfter));
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, { error: d.errTooManyChecks(outcome.retryAfter) }),
          });
        case 'expired':
          clearCookie(ctx, ACCOUNT_PENDING_COOKIE);
          return sendPage(ctx, { status: 303, location: '/account' });
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/code/resend',
    interface: 'platform',
    operationId: 'accountCodeResend',
    summary: 'Buyer account: a new code by SMS',
    description: 'After the cooldown (OTP_RESEND_COOLDOWN_SECONDS) and within the per-phone resend limit.',
    guards: withAccountSignIn,
    request: { bodyTypes: ['application/x-www-form-urlencoded'] },
    responses: {
      200: htmlResponse('The code page, saying a new code is on its way.'),
      303: redirectResponse('No pending code: to /account.'),
      ...forbidden,
      429: htmlResponse('The cooldown or the resend limit (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = await accountPage(ctx);
      const d = DASHBOARD_STRINGS[p.locale];
      const pending = readCookie(ctx, ACCOUNT_PENDING_COOKIE);
      const service = signInOf(ctx);
      const outcome = await service.resend(pending, ctx.ip);
      const masked = (await service.pendingPhone(pending)) ?? '';
      switch (outcome.kind) {
        case 'expired':
          return sendPage(ctx, { status: 303, location: '/account' });
        case 'sent':
          return sendPage(ctx, { status: 200, html: codeView(p, masked, { notice: d.newCodeSent }) });
        case 'cooldown':
          ctx.set('Retry-After', String(outcome.wait));
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, { error: d.errCooldown(outcome.wait) }),
          });
        case 'rate_limited':
          ctx.set('Retry-After', String(outcome.retryAfter));
          return sendPage(ctx, {
            status: 429,
            html: codeView(p, masked, { error: d.errRateLimited(outcome.retryAfter) }),
          });
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/signin/email',
    interface: 'platform',
    operationId: 'accountSignInEmail',
    summary: 'Buyer account: e-mail a sign-in link',
    description:
      `Form field \`email\`. Any valid address gets a one-time link (${EMAIL_LINK_MINUTES} minutes) by ` +
      'e-mail (GET /__dev/outbox?to=ADDRESS in development) and the same answer. Limited per address and IP.',
    guards: refuseCrossSite(),
    request: form({ email: Joi.string().allow('').max(400) }),
    responses: {
      200: htmlResponse('“Check your e-mail”.'),
      ...forbidden,
      422: htmlResponse('Not an e-mail address (the sign-in page again, saying so).'),
      429: htmlResponse('Too many links for this address or IP (with Retry-After).'),
    },
    handler: async (ctx) => {
      const p = await accountPage(ctx);
      const raw = formField(ctx, 'email');
      const email = normalEmail(raw);
      const values = { phone: { country_code: '966', phone: '' }, email: raw };
      if (!email) {
        return sendPage(ctx, { status: 422, html: signInView(p, { ...values, emailError: p.t.errEmail }) });
      }
      const outcome = await startEmailSignIn(
        { ...ctx.deps, enforce: enforce(ctx) },
        { email, ip: ctx.ip, locale: p.locale, accountUrl: accountUrl(ctx, p), storeId: p.store?.id ?? null },
      );
      if (outcome.kind === 'rate_limited') {
        ctx.set('Retry-After', String(outcome.retryAfter));
        return sendPage(ctx, {
          status: 429,
          html: signInView(p, { ...values, emailError: p.t.tooMany }),
        });
      }
      sendPage(ctx, { status: 200, html: linkSentView(p, EMAIL_LINK_MINUTES) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/account/email/{token}',
    interface: 'platform',
    operationId: 'accountEmailLink',
    summary: 'Buyer account: the e-mailed sign-in link',
    description:
      'Signs in the address the link was sent to, once (the link is spent), and 303 to /account. A used, ' +
      'expired or unknown link: 410 with a page that says so.',
    request: {
      params: Joi.object<{ token: string }, true>({ token: Joi.string().max(120).required() }),
      query: langQuery,
    },
    responses: {
      303: redirectResponse('Signed in: to /account.'),
      410: htmlResponse('The link was used, expired or is unknown.'),
    },
    handler: async (ctx, { params }) => {
      const email = await consumeEmailLink(ctx.deps.knex, params.token);
      if (!email) {
        const p = await accountPage(ctx);
        return sendPage(ctx, messagePage(p, 410, p.t.linkSentTitle, p.t.linkUsed));
      }
      await startSession(ctx, { kind: 'email', value: email });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/account/signout',
    interface: 'platform',
    operationId: 'accountSignOut',
    summary: 'Buyer account: sign out',
    description: 'Ends this session; with `everywhere=1`, every session of this phone (or address). 303.',
    guards: accountSignedIn(),
    request: form({ everywhere: Joi.string().valid('0', '1') }),
    responses: { 303: redirectResponse('Signed out: to /account.'), ...forbidden },
    handler: async (ctx) => {
      const { session } = accountOf(ctx);
      if (formField(ctx, 'everywhere') === '1') await revokeIdentitySessions(ctx.deps.knex, session.identity);
      else await revokeBuyerSession(ctx.deps.knex, session.id);
      clearCookie(ctx, ACCOUNT_COOKIE);
      sendPage(ctx, { status: 303, location: '/account' });
    },
  }),
];
