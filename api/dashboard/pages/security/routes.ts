import Joi from 'joi';
import QRCode from 'qrcode';
import type { Deps } from '../../../../shared/deps';
import { SecondFactor } from '../../../../shared/services/staff/second-factor';
import { revokeOtherSessions } from '../../../../shared/services/staff/sessions';
import { liveSessions, revokeOwnSession } from '../../../../shared/services/staff/session-list';
import { otpauthUri } from '../../../../shared/services/staff/totp';
import { DashboardSignIn } from '../../../../shared/services/staff/sign-in';
import { otpGuardsOf } from '../../../../shared/services/otp/factory';
import { formBody } from '../../forms';
import type { AppContext, AppMiddleware } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { SecurityPage, securityView } from './view';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';

/**
 * The person's own two-step sign-in (docs/dashboard.md, "Two-step sign-in"): an authenticator app is
 * switched on only after its first code, switched off only with a current one, and the recovery codes are
 * shown once. Every code checked here counts against the same per-IP and per-phone throttles as the
 * sign-in's.
 */

interface SecurityServices {
  factors: SecondFactor;
  signIn: DashboardSignIn;
}

/** Signed in (any role: the factor is the person's, not the store's), with the services at hand. */
function withSecurity(deps: Deps): AppMiddleware[] {
  const limiter = deps.services.rateLimiter;
  const services: SecurityServices = {
    factors: new SecondFactor({ knex: deps.knex, cipher: deps.cipher, appSecret: deps.appSecret }),
    signIn: new DashboardSignIn({
      config: deps.config,
      knex: deps.knex,
      queues: deps.queues,
      appSecret: deps.appSecret,
      cipher: deps.cipher,
      consumeLimit: async (def, key, cost) => {
        await limiter.enforce([{ def, key, cost }]);
      },
      guards: otpGuardsOf(deps),
    }),
  };
  return [
    ...signedIn(null)(deps),
    async (ctx, next) => {
      ctx.state.security = services;
      await next();
    },
  ];
}

const servicesOf = (ctx: AppContext): SecurityServices => ctx.state.security as SecurityServices;

async function render(
  ctx: AppContext,
  status: number,
  extra: Partial<Omit<SecurityPage, 'status' | 'setup'>> = {},
): Promise<void> {
  const { signedIn: s, shell } = dashboardOf(ctx);
  const state = await servicesOf(ctx).factors.status(s.user.id);
  let setup: SecurityPage['setup'] = null;
  if (state.pendingSecret) {
    const uri = otpauthUri(state.pendingSecret, 'Matjar', `+${s.user.e164}`);
    setup = { uri, qrSvg: await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) };
  }
  sendPage(ctx, {
    status,
    html: securityView(shell, {
      status: state,
      setup,
      recoveryCodes: extra.recoveryCodes ?? null,
      notice: extra.notice ?? null,
      error: extra.error ?? null,
      sessions: { rows: await liveSessions(ctx.deps.knex, s.user.id), current: s.session.id },
    }),
  });
}

/** The throttles of checking a code; true when the page was answered 429. */
async function throttled(ctx: AppContext): Promise<boolean> {
  const { signedIn: s, shell } = dashboardOf(ctx);
  const limited = await servicesOf(ctx).signIn.throttleCheck(ctx.ip, s.user.e164);
  if (!limited) return false;
  ctx.set('Retry-After', String(limited.retryAfter));
  await render(ctx, 429, { error: shell.t.errTooManyChecks(limited.retryAfter) });
  return true;
}

const securityPostAnswers = {
  403: htmlResponse('A missing or wrong form token, or a form from another site.'),
};

export const dashboardSecurityRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/security',
    interface: 'platform',
    operationId: 'dashboardSecurity',
    summary: 'Merchant dashboard: two-step sign-in',
    description:
      'Whether an authenticator app guards this person’s sign-in; while one is being set up, its ' +
      'otpauth:// URI, the key in base32 and a QR code, and the form for its first code.',
    guards: withSecurity,
    request: {
      query: Joi.object<{ lang?: string; off?: string }, true>({
        lang: Joi.string().valid('ar', 'en'),
        off: Joi.string().max(2),
      }),
    },
    responses: {
      200: htmlResponse('The security page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Belongs to no store.'),
    },
    handler: async (ctx, { query }) => {
      const { shell } = dashboardOf(ctx);
      await render(ctx, 200, { notice: query.off === '1' ? shell.t.twoStepDisabled : null });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/security/totp',
    interface: 'platform',
    operationId: 'dashboardSecurityTotpStart',
    summary: 'Merchant dashboard: set up an authenticator app',
    description: 'Form field `_csrf`. A new key to set up (not yet in force); 303 to the security page.',
    guards: withSecurity,
    request: formBody({}),
    responses: { 303: redirectResponse('To the security page, showing the key.'), ...securityPostAnswers },
    handler: async (ctx) => {
      await servicesOf(ctx).factors.beginEnrolment(dashboardOf(ctx).signedIn.user.id);
      sendPage(ctx, { status: 303, location: '/merchant/security' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/security/totp/confirm',
    interface: 'platform',
    operationId: 'dashboardSecurityTotpConfirm',
    summary: 'Merchant dashboard: switch the authenticator app on',
    description:
      'Form fields `_csrf`, `code` (the app’s current code). Right: two-step sign-in is on and the page ' +
      'shows the ten recovery codes, this once; every other session of this person ends. Wrong: the page ' +
      'again, saying so.',
    guards: withSecurity,
    request: formBody({ code: Joi.string().allow('').max(20) }),
    responses: {
      200: htmlResponse('Switched on: the recovery codes.'),
      303: redirectResponse('Nothing being set up: to the security page.'),
      422: htmlResponse('A wrong code (the page again, saying so).'),
      429: htmlResponse('Too many codes checked for this phone or IP (with Retry-After).'),
      ...securityPostAnswers,
    },
    handler: async (ctx) => {
      const { signedIn: s, shell } = dashboardOf(ctx);
      const { factors } = servicesOf(ctx);
      if (!(await factors.status(s.user.id)).pendingSecret) {
        return sendPage(ctx, { status: 303, location: '/merchant/security' });
      }
      if (await throttled(ctx)) return;
      const codes = await factors.confirmEnrolment(s.user.id, formField(ctx, 'code').replace(/\s/g, ''));
      if (!codes) return render(ctx, 422, { error: shell.t.errAppCode });
      await revokeOtherSessions(ctx.deps.knex, s.user.id, s.session.id);
      await render(ctx, 200, { recoveryCodes: codes, notice: shell.t.twoStepEnabled });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/security/totp/disable',
    interface: 'platform',
    operationId: 'dashboardSecurityTotpDisable',
    summary: 'Merchant dashboard: switch the authenticator app off',
    description:
      'Form fields `_csrf`, `code` (a current code of the app, not used before). Right: two-step sign-in ' +
      'is off and the recovery codes are gone; 303 to the security page. Wrong: the page again.',
    guards: withSecurity,
    request: formBody({ code: Joi.string().allow('').max(20) }),
    responses: {
      303: redirectResponse('Switched off (or nothing to switch off): to the security page.'),
      422: htmlResponse('A wrong code (the page again, saying so).'),
      429: htmlResponse('Too many codes checked for this phone or IP (with Retry-After).'),
      ...securityPostAnswers,
    },
    handler: async (ctx) => {
      const { signedIn: s, shell } = dashboardOf(ctx);
      const { factors } = servicesOf(ctx);
      if (!(await factors.enabled(s.user.id))) {
        return sendPage(ctx, { status: 303, location: '/merchant/security' });
      }
      if (await throttled(ctx)) return;
      if (!(await factors.verifyCode(s.user.id, formField(ctx, 'code').replace(/\s/g, '')))) {
        return render(ctx, 422, { error: shell.t.errAppCode });
      }
      await factors.disable(s.user.id);
      sendPage(ctx, { status: 303, location: '/merchant/security?off=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/security/sessions/{sessionId}/revoke',
    interface: 'platform',
    operationId: 'dashboardSessionRevoke',
    summary: 'Merchant dashboard: end one of my sessions',
    description:
      'Ends one of the signed-in person’s own sessions (a "keep me signed in" device lost or left): its ' +
      'cookie signs no one in from then on. Another person’s session: 404. 303 back to the security page.',
    guards: withSecurity,
    request: {
      params: Joi.object<{ sessionId: number }, true>({
        sessionId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }),
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Ended: to the security page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      404: htmlResponse('No such session of this person.'),
      ...securityPostAnswers,
    },
    handler: async (ctx, { params }) => {
      const { signedIn: s, shell } = dashboardOf(ctx);
      if (!(await revokeOwnSession(ctx.deps.knex, s.user.id, params.sessionId))) {
        return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
      }
      sendPage(ctx, { status: 303, location: '/merchant/security' });
    },
  }),
];
