import Joi from 'joi';
import {
  createStoreWithOwner,
  findUserById,
  membershipsOf,
} from '../../../../shared/services/staff/accounts';
import {
  challengeAttemptsLeft,
  finishChallenge,
  reserveChallengeAttempt,
} from '../../../../shared/services/staff/second-factor';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { secondFactorView } from '../sign-in/view';
import { sendPage } from '../../layout';
import { CHALLENGE_COOKIE, clearCookie, formField, messagePage, publicContext } from '../../session';
import {
  withSignIn,
  signInService,
  secondFactorOf,
  langQuery,
  nextOf,
  safeNext,
  startSession,
  challengeOf,
  rateLimited,
  page,
} from '../sign-in/flow';

/** The second step of signing in, for a person with an authenticator app (docs/dashboard.md, "Two-step sign-in"). */

export const dashboardSecondFactorRoutes = [
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
];
