import { EMBED_KEY_SECURITY, embedOk, jsonBody, object, ref, Responses, schemaRef } from '../components';
import type { OpenApiFragment, OperationObject, SchemaObject } from '../types';
import { embedCheckoutPaths, embedCheckoutSchemas } from './embed-checkout';
import { embedPaymentPaths, embedPaymentSchemas } from './payments';

/**
 * The Embed API (/api/embed): checkout from external websites. Every route but payment status needs the
 * store's embed key and passes the origin check and the Embed rate limits.
 */

const sessionToken: SchemaObject = { type: 'string', description: 'The OTP session, from auth/start.' };

/** Answers every guarded Embed route can give besides its own. */
const guarded: Responses = {
  '401': ref('responses', 'EmbedUnauthenticated'),
  '403': ref('responses', 'EmbedForbidden'),
  '422': ref('responses', 'EmbedValidationFailed'),
  '429': ref('responses', 'EmbedRateLimited'),
};

function post(
  operationId: string,
  summary: string,
  description: string,
  body: SchemaObject,
  responses: Responses,
): { post: OperationObject } {
  return {
    post: {
      tags: ['Embed'],
      summary,
      description,
      operationId,
      security: EMBED_KEY_SECURITY,
      requestBody: jsonBody(body),
      responses: { ...guarded, ...responses },
    },
  };
}

const authenticated = object({
  status: { const: 'authenticated' },
  customer: schemaRef('Customer'),
  token: { type: 'string', description: 'Customer bearer token (abilities embed:checkout, embed:validate).' },
});

export const embed: OpenApiFragment = {
  tag: {
    name: 'Embed',
    description:
      'Checkout from external websites: phone OTP sign-in, guest checkout, coupons, payment initiation and ' +
      'status. Send the store’s public key as `X-Embed-Key` (or `embed_key`). CORS: any allowed origin, ' +
      'preflight answered 204 with a max age of 86400 s.',
  },
  paths: {
    '/api/embed/auth/start': post(
      'embedAuthStart',
      'Start phone sign-in',
      'Sends a 4-digit code by WhatsApp, falling back to SMS. Limits: 50 per IP per day and 10 per phone per day. ' +
        'A blocked phone is refused with 403 PHONE_BLOCKED; an unknown or inactive product with 404.',
      object({
        product_id: { type: 'integer', description: 'Must exist and be active.' },
        country_code: { type: 'string', description: 'With or without a leading + or 00.', maxLength: 10 },
        phone: { type: 'string', description: 'Number without country code.', maxLength: 20 },
      }),
      {
        '200': embedOk('An OTP session.', schemaRef('OtpSession'), {
          success: true,
          data: {
            session_token: 'otp_…',
            expires_in: 300,
            resend_cooldown: 30,
            masked_phone: '+966 5*****001',
          },
        }),
        '404': ref('responses', 'EmbedError'),
      },
    ),
    '/api/embed/auth/resend': post(
      'embedAuthResend',
      'Send a new code',
      'By SMS only. The new code replaces the old one. Limits: 20 per IP per day and 3 per phone per 10 minutes.',
      object({ session_token: sessionToken }),
      {
        '200': embedOk(
          'Sent.',
          object({ message: { type: 'string' }, resend_cooldown: { type: 'integer' } }),
        ),
        '400': ref('responses', 'EmbedError'),
        '404': ref('responses', 'EmbedError'),
      },
    ),
    '/api/embed/auth/verify': post(
      'embedAuthVerify',
      'Check the code',
      'An existing customer gets a token; a new phone gets `needs_registration` and goes on with auth/complete. ' +
        'Three attempts per code (INVALID_CODE with remaining_attempts, then MAX_ATTEMPTS_REACHED).',
      object({ session_token: sessionToken, code: { type: 'string', pattern: '^\\d{4}$' } }),
      {
        '200': embedOk('Verified.', {
          oneOf: [
            authenticated,
            object({ status: { const: 'needs_registration' }, session_token: sessionToken }),
          ],
        }),
        '400': ref('responses', 'EmbedError'),
        '404': ref('responses', 'EmbedError'),
      },
    ),
    '/api/embed/auth/complete': post(
      'embedAuthComplete',
      'Register a new customer',
      'Only after verify answered needs_registration, and only once per session.',
      object({
        session_token: sessionToken,
        firstName: { type: 'string', maxLength: 100 },
        lastName: { type: 'string', maxLength: 100 },
        email: { type: 'string', format: 'email' },
      }),
      {
        '200': embedOk('Registered.', object({ customer: schemaRef('Customer'), token: { type: 'string' } })),
        '400': ref('responses', 'EmbedError'),
      },
    ),
    '/api/embed/auth/validate': {
      post: {
        ...post(
          'embedAuthValidate',
          'Check a saved customer token',
          'Restores a saved session without the OTP flow. 403 when the customer belongs to another store than the product.',
          object({ product_id: { type: 'integer' } }),
          {
            '200': embedOk(
              'The token is valid.',
              object({ valid: { const: true }, customer: schemaRef('Customer') }),
            ),
          },
        ).post,
        security: [
          { EmbedKey: [], CustomerBearer: [] },
          { EmbedKeyQuery: [], CustomerBearer: [] },
        ],
      },
    },
    ...embedCheckoutPaths,
    ...embedPaymentPaths,
  },
  schemas: {
    ...embedCheckoutSchemas,
    ...embedPaymentSchemas,
    OtpSession: object({
      session_token: { type: 'string' },
      expires_in: { type: 'integer', description: 'Seconds until the session expires (OTP_TTL_SECONDS).' },
      resend_cooldown: {
        type: 'integer',
        description: 'Seconds before a resend (OTP_RESEND_COOLDOWN_SECONDS).',
      },
      masked_phone: { type: 'string' },
    }),
  },
};
