import { ForbiddenError } from '../../../shared/errors';
import { TOKEN_NOT_FOR_PRODUCT, validateSessionForProduct } from '../../../shared/services/customers/session';
import { EMBED_ABILITIES, revokeCustomerToken } from '../../../shared/services/tokens';
import { embedOk, object, schemaRef } from '../../openapi/components';
import { buyerLocale } from '../../pay/i18n';
import { defineRoute } from '../../http/route';
import { customerAuth } from '../../middleware/customer-auth';
import { embedGuards } from '../../guards';
import { EMBED_WITH_TOKEN } from '../security';
import * as schemas from './schemas';

/** POST /api/embed/auth/*: phone OTP sign-in for the embedded checkout, behind the embed guards. */

export const embedAuthRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/start',
    interface: 'embed',
    operationId: 'embedAuthStart',
    summary: 'Start phone sign-in',
    description:
      'Sends a 4-digit code by WhatsApp, falling back to SMS. Limits: 50 per IP per day and 10 per phone per day. ' +
      'A blocked phone is refused with 403 PHONE_BLOCKED; an unknown or inactive product with 404.',
    guards: embedGuards,
    request: { body: schemas.startBody },
    responses: {
      200: embedOk('An OTP session.', schemaRef('OtpSession'), {
        success: true,
        data: {
          session_token: 'otp_…',
          expires_in: 300,
          resend_cooldown: 30,
          masked_phone: '+966 5*****001',
        },
      }),
      404: 'EmbedError',
    },
    handler: (ctx, { body }) =>
      ctx.deps.services.otp.start(
        ctx.state.store!,
        'embed',
        body,
        ctx.ip,
        ctx.state.budget,
        buyerLocale(ctx),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/resend',
    interface: 'embed',
    operationId: 'embedAuthResend',
    summary: 'Send a new code',
    description:
      'By SMS only. The new code replaces the old one. Limits: 20 per IP per day and 3 per phone per 10 minutes.',
    guards: embedGuards,
    request: { body: schemas.resendBody },
    responses: {
      200: embedOk('Sent.', object({ message: { type: 'string' }, resend_cooldown: { type: 'integer' } })),
      400: 'EmbedError',
      404: 'EmbedError',
    },
    handler: (ctx, { body }) =>
      ctx.deps.services.otp.resend(ctx.state.store!, 'embed', body.session_token, ctx.ip, buyerLocale(ctx)),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/verify',
    interface: 'embed',
    operationId: 'embedAuthVerify',
    summary: 'Check the code',
    description:
      'An existing customer gets a token; a new phone gets `needs_registration` and goes on with auth/complete. ' +
      'Three attempts per code (INVALID_CODE with remaining_attempts, then MAX_ATTEMPTS_REACHED). At most 10 ' +
      'failed codes per phone number a day, across sessions, resends and both APIs: past that ' +
      'MAX_ATTEMPTS_REACHED (with `retry_after`) until the day (UTC) is over, even with the right code.',
    guards: embedGuards,
    request: { body: schemas.verifyBody },
    responses: {
      200: embedOk('Verified.', schemaRef('VerifyResult')),
      400: 'EmbedError',
      404: 'EmbedError',
    },
    handler: (ctx, { body }) =>
      ctx.deps.services.otp.verify(ctx.state.store!, 'embed', body.session_token, body.code),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/complete',
    interface: 'embed',
    operationId: 'embedAuthComplete',
    summary: 'Register a new customer',
    description: 'Only after verify answered needs_registration, and only once per session.',
    guards: embedGuards,
    request: { body: schemas.completeBody },
    responses: {
      200: embedOk('Registered.', schemaRef('Registered')),
      400: 'EmbedError',
    },
    handler: (ctx, { body }) => ctx.deps.services.otp.complete(ctx.state.store!, 'embed', body),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/validate',
    interface: 'embed',
    operationId: 'embedAuthValidate',
    summary: 'Check a saved customer token',
    description:
      'Restores a saved session without the OTP flow. 403 when the customer belongs to another store than the product.',
    security: EMBED_WITH_TOKEN,
    guards: (deps) => [
      ...embedGuards(deps),
      customerAuth({
        kind: 'embed',
        abilities: [EMBED_ABILITIES[1]],
        // Spec, Embed errors by endpoint: "auth/validate 403 Token not valid for this product (other store)".
        foreignStoreError: () => new ForbiddenError(TOKEN_NOT_FOR_PRODUCT).withCode('token_not_for_product'),
      }),
    ],
    request: { body: schemas.validateBody },
    responses: {
      200: embedOk(
        'The token is valid.',
        object({ valid: { const: true }, customer: schemaRef('Customer') }),
      ),
    },
    handler: (ctx, { body }) =>
      validateSessionForProduct(ctx.deps.knex, ctx.state.customer!, body.product_id),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/auth/logout',
    interface: 'embed',
    operationId: 'embedAuthLogout',
    summary: 'Sign out',
    description:
      'Revokes the customer token sent in `Authorization`: from now on it answers 401 everywhere. Other ' +
      'tokens of the customer (another device, the storefront) stay valid. A token of a blocked phone is ' +
      'dead already.',
    security: EMBED_WITH_TOKEN,
    guards: (deps) => [...embedGuards(deps), customerAuth({ kind: 'embed' })],
    responses: {
      200: embedOk('Signed out.', object({ signed_out: { const: true } }), {
        success: true,
        data: { signed_out: true },
      }),
    },
    handler: async (ctx) => {
      await revokeCustomerToken(ctx.deps.knex, ctx.state.customerToken!.id);
      return { signed_out: true as const };
    },
  }),
];
