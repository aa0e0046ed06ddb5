import { LIMITS } from '../../../shared/rate-limits';
import { revokeCustomerToken } from '../../../shared/services/tokens';
import { customerAuth } from '../../middleware/customer-auth';
import { CUSTOMER_TOKEN, unauthenticated } from '../responses';
import { object, schemaRef, storefrontOk } from '../../openapi/components';
import { buyerLocale } from '../../pay/i18n';
import { completeBody, resendBody, storefrontStartBody, verifyBody } from '../../embed/auth/schemas';
import { defineRoute, reply } from '../../http/route';
import { byClientIp, rateLimit } from '../../middleware/rate-limit';
import { storefrontGuards } from '../../guards';

/**
 * POST /api/auth/*: storefront sign-in on the same OTP engine as the Embed API, issuing storefront
 * customer tokens. /auth/complete registers a new phone, as in the Embed API.
 */

export const storefrontAuthRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/start',
    interface: 'storefront',
    operationId: 'storefrontAuthStart',
    summary: 'Start phone sign-in',
    description:
      'Sends a 4-digit code by WhatsApp, falling back to SMS. 50 sessions per IP and 10 per phone per day.',
    guards: storefrontGuards,
    request: { body: storefrontStartBody },
    responses: { 200: storefrontOk('An OTP session.', schemaRef('OtpSession')), 403: 'StorefrontError' },
    handler: (ctx, { body }) =>
      ctx.deps.services.otp.start(
        ctx.state.store!,
        'storefront',
        body,
        ctx.ip,
        ctx.state.budget,
        buyerLocale(ctx),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/resend',
    interface: 'storefront',
    operationId: 'storefrontAuthResend',
    summary: 'Send a new code',
    description: 'By SMS only; 3 resends per 10 minutes per phone and 20 a day per client IP.',
    guards: storefrontGuards,
    request: { body: resendBody },
    responses: {
      200: storefrontOk('Sent; `message` says so.', object({ resend_cooldown: { type: 'integer' } })),
      404: 'StorefrontError',
    },
    handler: async (ctx, { body }) => {
      const result = await ctx.deps.services.otp.resend(
        ctx.state.store!,
        'storefront',
        body.session_token,
        ctx.ip,
        buyerLocale(ctx),
      );
      return reply({ resend_cooldown: result.resend_cooldown }, { message: result.message });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/verify',
    interface: 'storefront',
    operationId: 'storefrontAuthVerify',
    summary: 'Check the code',
    description:
      '5 attempts per minute per IP. At most 10 failed codes per phone number a day, across sessions, ' +
      'resends and both APIs: past that 429 until the day (UTC) is over, even with the right code.',
    guards: (deps) => [
      ...storefrontGuards(deps),
      rateLimit([{ def: LIMITS.storefrontVerifyPerIp, key: byClientIp }]),
    ],
    request: { body: verifyBody },
    responses: {
      200: storefrontOk('Verified: a storefront customer token, or `needs_registration` for a new phone.', {
        oneOf: [
          object({
            status: { const: 'authenticated' },
            customer: schemaRef('Customer'),
            token: { type: 'string' },
          }),
          object({ status: { const: 'needs_registration' }, session_token: { type: 'string' } }),
        ],
      }),
      404: 'StorefrontError',
    },
    handler: (ctx, { body }) =>
      ctx.deps.services.otp.verify(ctx.state.store!, 'storefront', body.session_token, body.code),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/complete',
    interface: 'storefront',
    operationId: 'storefrontAuthComplete',
    summary: 'Register a new customer',
    guards: storefrontGuards,
    request: { body: completeBody },
    responses: {
      200: storefrontOk(
        'Registered.',
        object({ customer: schemaRef('Customer'), token: { type: 'string' } }),
      ),
    },
    handler: (ctx, { body }) => ctx.deps.services.otp.complete(ctx.state.store!, 'storefront', body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/auth/logout',
    interface: 'storefront',
    operationId: 'storefrontAuthLogout',
    summary: 'Sign out',
    description:
      'Revokes the storefront customer token sent in `Authorization`: from now on it answers 401. Other ' +
      'tokens of the customer (another device, the embedded checkout) stay valid.',
    security: CUSTOMER_TOKEN,
    guards: (deps) => [...storefrontGuards(deps), customerAuth({ kind: 'storefront' })],
    responses: {
      200: storefrontOk('Signed out.', object({ signed_out: { const: true } })),
      401: unauthenticated,
    },
    handler: async (ctx) => {
      await revokeCustomerToken(ctx.deps.knex, ctx.state.customerToken!.id);
      return { signed_out: true as const };
    },
  }),
];
