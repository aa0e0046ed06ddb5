import { jsonBody, NO_CREDENTIALS, object, ref, Responses, schemaRef, storefrontOk } from '../components';
import type { OpenApiFragment, OperationObject, SchemaObject } from '../types';

/** The Storefront API (/api): the store is found from the request's Host, else the host of its Origin. */

const sessionToken: SchemaObject = { type: 'string', description: 'The OTP session, from auth/start.' };

const common: Responses = {
  '400': ref('responses', 'StoreNotResolved'),
  '422': ref('responses', 'StorefrontValidationFailed'),
  '429': ref('responses', 'RateLimited'),
};

function post(
  operationId: string,
  summary: string,
  body: SchemaObject,
  responses: Responses,
  description?: string,
): { post: OperationObject } {
  return {
    post: {
      tags: ['Storefront'],
      summary,
      ...(description ? { description } : {}),
      operationId,
      security: NO_CREDENTIALS,
      requestBody: jsonBody(body),
      responses: { ...common, ...responses },
    },
  };
}

export const storefront: OpenApiFragment = {
  tag: {
    name: 'Storefront',
    description:
      'Customer-facing store features (wishlist, reviews, products, cart, checkout, sign-in). The store is the ' +
      'one whose domains match the Host (port ignored), else the host of the Origin. 60 requests per minute per IP.',
  },
  paths: {
    '/api/auth/start': post(
      'storefrontAuthStart',
      'Start phone sign-in',
      object({ country_code: { type: 'string', maxLength: 10 }, phone: { type: 'string', maxLength: 20 } }),
      {
        '200': storefrontOk('An OTP session.', schemaRef('OtpSession')),
        '403': ref('responses', 'StorefrontError'),
      },
      'Sends a 4-digit code by WhatsApp, falling back to SMS. 50 sessions per IP and 10 per phone per day.',
    ),
    '/api/auth/resend': post(
      'storefrontAuthResend',
      'Send a new code',
      object({ session_token: sessionToken }),
      {
        '200': storefrontOk('Sent; `message` says so.', object({ resend_cooldown: { type: 'integer' } })),
        '404': ref('responses', 'StorefrontError'),
      },
      'By SMS only; 3 resends per 10 minutes.',
    ),
    '/api/auth/verify': post(
      'storefrontAuthVerify',
      'Check the code',
      object({ session_token: sessionToken, code: { type: 'string', pattern: '^\\d{4}$' } }),
      {
        '200': storefrontOk(
          'Verified: a storefront customer token, or `needs_registration` for a new phone.',
          {
            oneOf: [
              object({
                status: { const: 'authenticated' },
                customer: schemaRef('Customer'),
                token: { type: 'string' },
              }),
              object({ status: { const: 'needs_registration' }, session_token: sessionToken }),
            ],
          },
        ),
        '404': ref('responses', 'StorefrontError'),
      },
      '5 attempts per minute per IP.',
    ),
    '/api/auth/complete': post(
      'storefrontAuthComplete',
      'Register a new customer',
      object({
        session_token: sessionToken,
        firstName: { type: 'string', maxLength: 100 },
        lastName: { type: 'string', maxLength: 100 },
        email: { type: 'string', format: 'email' },
      }),
      {
        '200': storefrontOk(
          'Registered.',
          object({ customer: schemaRef('Customer'), token: { type: 'string' } }),
        ),
      },
    ),
  },
};
