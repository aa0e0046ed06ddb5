import {
  EMBED_KEY_SECURITY,
  embedOk,
  jsonBody,
  jsonResponse,
  NO_CREDENTIALS,
  object,
  ref,
  Responses,
  schemaRef,
} from '../components';
import type {
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponseObject,
  SchemaObject,
} from '../types';

/**
 * Payments: initiation and status (merged into the Embed fragment), the platform's hosted payment pages,
 * the sandbox provider's page and the provider webhooks (merged into the Webhooks fragment). The rules
 * are those of shared/services/payments and shared/providers.
 */

const METHOD_IDS = ['card', 'mada', 'stcpay', 'applepay', 'paypal', 'bank', 'coinbase'];

const embedError = (description: string, message: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: schemaRef('EmbedError'), example: { success: false, message } } },
});

const INITIATE_RULES =
  'The API never calls a provider while answering. For a hosted-page provider (sandbox, Moyasar for card, ' +
  'mada, Apple Pay and STC Pay, Coinbase Commerce for crypto) it records a pending payment and answers ' +
  '`redirect` with the platform’s payment page (`/pay/payments/{ref}`), which forwards to the provider as soon ' +
  'as the provider session exists (a worker creates it), and shows the error with a Retry button if the ' +
  'provider refused or could not be reached. Initiating again while that session is open returns the same page.' +
  '\n\n**PayPal**: with a pay-by-link configured, `redirect` to that link (a PayPal.me link gets the amount ' +
  'appended when its currency is one PayPal.me takes); with only an e-mail, `paypal_manual`. **Bank transfer**: ' +
  '`bank_transfer` with the store’s details. For both the order is created at once in Under review (2) and ' +
  'waits for the merchant to confirm the payment; `payment/status` answers `is_paid: false` until then, and a ' +
  'further initiation answers 400 "Order already created for this checkout".' +
  '\n\n**Refusals**: 404 unknown or expired checkout (or, authenticated, a checkout of another customer); 400 ' +
  'order already created; 400 method not configured for the store; 400 a method outside the coupon’s ' +
  '`payment_restrictions`; 400 a method whose minimum or maximum amount excludes the total; 422 a ' +
  '`payment_method` that is not one of the seven ids.';

const initiateBody = object({
  checkout_url: { type: 'string', maxLength: 200, description: 'From the checkout response.' },
  payment_method: { type: 'string', enum: METHOD_IDS },
});

const initiateResponses: Responses = {
  '200': embedOk('How to pay.', schemaRef('PaymentInitiation'), {
    success: true,
    data: { type: 'redirect', redirect_url: 'https://shop.example.test/pay/payments/42-5f0c…' },
  }),
  '400': embedError(
    'Order already created, method not configured, not allowed by the coupon, or outside its amount bounds.',
    'Order already created for this checkout',
  ),
  '401': ref('responses', 'EmbedUnauthenticated'),
  '403': ref('responses', 'EmbedForbidden'),
  '404': embedError('Unknown or expired checkout.', 'Checkout session expired or not found'),
  '422': ref('responses', 'EmbedValidationFailed'),
  '429': ref('responses', 'EmbedRateLimited'),
};

function initiate(operationId: string, summary: string, authenticated: boolean): { post: OperationObject } {
  return {
    post: {
      tags: ['Embed'],
      summary,
      description: INITIATE_RULES,
      operationId,
      security: authenticated
        ? [
            { EmbedKey: [], CustomerBearer: [] },
            { EmbedKeyQuery: [], CustomerBearer: [] },
          ]
        : EMBED_KEY_SECURITY,
      requestBody: jsonBody(initiateBody, { checkout_url: 'Qm9…', payment_method: 'card' }),
      responses: initiateResponses,
    },
  };
}

const pathParam = (name: string, description: string): ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const html = (description: string): ResponseObject => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

const redirect = (description: string): ResponseObject => ({
  description,
  headers: {
    Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri' } },
  },
});

const form = (properties: Record<string, SchemaObject>) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: object(properties) } },
});

const RATE_LIMITED: ResponseObject = {
  description: 'Too many requests from this IP (120 per minute, shared with payment status polling).',
  content: { 'application/json': { schema: schemaRef('PlatformError') } },
};

export const embedPaymentPaths: Record<string, PathItemObject> = {
  '/api/embed/payment/initiate': initiate(
    'embedPaymentInitiate',
    'Start paying a checkout (authenticated)',
    true,
  ),
  '/api/embed/guest/payment/initiate': initiate(
    'embedGuestPaymentInitiate',
    'Start paying a checkout (guest)',
    false,
  ),
  '/api/embed/payment/status/{checkoutUrl}': {
    get: {
      tags: ['Embed'],
      summary: 'Payment status of a checkout',
      description:
        'Public: no embed key, no token (the checkout URL is the secret). Cheap enough to poll every 2 to 3 ' +
        'seconds (one indexed query), limited to 120 requests per minute per IP. `is_paid` becomes true once ' +
        'the payment is confirmed and the order exists; `order_id` is null until then. A checkout with an order ' +
        'keeps answering after its lifetime; an unpaid one past it answers 404.',
      operationId: 'embedPaymentStatus',
      security: NO_CREDENTIALS,
      parameters: [pathParam('checkoutUrl', 'The checkout_url of the checkout.')],
      responses: {
        '200': embedOk('The status.', schemaRef('PaymentStatus'), {
          success: true,
          data: { is_paid: true, order_id: 1234 },
        }),
        '404': embedError('Unknown or expired checkout.', 'Checkout not found'),
        '422': ref('responses', 'EmbedValidationFailed'),
        '429': ref('responses', 'EmbedRateLimited'),
      },
    },
  },
};

export const embedPaymentSchemas: Record<string, SchemaObject> = {
  PaymentInitiation: {
    oneOf: [
      object({ type: { const: 'redirect' }, redirect_url: { type: 'string', format: 'uri' } }),
      object({
        type: { const: 'paypal_manual' },
        paypal_email: { type: 'string' },
        amount: { type: 'number' },
        checkout_url: { type: 'string' },
      }),
      object({
        type: { const: 'bank_transfer' },
        bank_details: object({
          bank_name: { type: 'string' },
          account_name: { type: 'string' },
          account_number: { type: 'string' },
          iban: { type: 'string' },
        }),
        amount: { type: 'number' },
        checkout_url: { type: 'string' },
      }),
    ],
  },
  PaymentStatus: object({ is_paid: { type: 'boolean' }, order_id: { type: ['integer', 'null'] } }),
};

const WEBHOOK_RULES =
  'Verified over the exact bytes received with the credentials of the store whose payment the event names: ' +
  '**moyasar**, the body’s `secret_token` equals the store’s webhook secret (constant-time); **coinbase**, ' +
  '`X-CC-Webhook-Signature` is the hex HMAC-SHA256 of the body keyed with the store’s shared secret; ' +
  '**sandbox**, `X-Sandbox-Signature` is the hex HMAC-SHA256 of the body keyed with a key derived from the ' +
  'platform secret. A valid event is stored once per provider event id and queued; the worker then asks the ' +
  'provider for the payment’s status (never trusting the event), checks amount and currency, and creates the ' +
  'order. Duplicates and replays are acknowledged and change nothing. An event about no payment of this ' +
  'platform is acknowledged and ignored. Configure the provider to send to `{PUBLIC_BASE_URL}/webhooks/{provider}`.';

export const webhookPaths: Record<string, PathItemObject> = {
  '/webhooks/{provider}': {
    post: {
      tags: ['Webhooks'],
      summary: 'Receive a payment provider’s webhook',
      description: WEBHOOK_RULES,
      operationId: 'receivePaymentWebhook',
      security: NO_CREDENTIALS,
      parameters: [
        {
          name: 'provider',
          in: 'path',
          required: true,
          schema: { type: 'string', enum: ['sandbox', 'moyasar', 'coinbase'] },
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
      responses: {
        '200': jsonResponse(
          'Received.',
          object(
            {
              received: { const: true },
              status: { type: 'string', enum: ['queued', 'duplicate', 'ignored'] },
              event_id: { type: 'string' },
            },
            ['event_id'],
          ),
          { received: true, status: 'queued', event_id: 'evt_…' },
        ),
        '400': ref('responses', 'PlatformError'),
        '401': {
          description: 'The signature does not verify; nothing was stored.',
          content: { 'application/json': { schema: schemaRef('PlatformError') } },
        },
        '404': ref('responses', 'PlatformError'),
      },
    },
  },
};

/** The HTML pages: the platform's hosted payment pages and the sandbox provider's page. */
export const paymentPagePaths: Record<string, PathItemObject> = {
  '/pay/{checkoutUrl}': {
    get: {
      tags: ['Embed'],
      summary: 'Hosted payment page of a checkout',
      description:
        'The `payment_url` of a checkout: the amount and a button per payment method available for it. ' +
        'Once the checkout has an order it shows the order (paid, or waiting for a manual payment). 404 page ' +
        'for an unknown or expired checkout.',
      operationId: 'hostedCheckoutPage',
      security: NO_CREDENTIALS,
      parameters: [pathParam('checkoutUrl', 'The checkout_url.')],
      responses: {
        '200': html('The page.'),
        '404': html('Unknown or expired checkout.'),
        '429': RATE_LIMITED,
      },
    },
    post: {
      tags: ['Embed'],
      summary: 'Pay with the chosen method',
      description:
        'The page’s form. Same rules and refusals as guest payment/initiate; a hosted-page method answers 303 ' +
        'to its payment page, PayPal and bank transfer show their instructions.',
      operationId: 'hostedCheckoutChoose',
      security: NO_CREDENTIALS,
      parameters: [pathParam('checkoutUrl', 'The checkout_url.')],
      requestBody: form({ payment_method: { type: 'string', enum: METHOD_IDS } }),
      responses: {
        '200': html('Manual payment instructions.'),
        '303': redirect('To the payment page (or the PayPal link).'),
        '400': html('Refused; the page says why.'),
        '404': html('Unknown or expired checkout.'),
        '422': html('Not a payment method id.'),
        '429': RATE_LIMITED,
      },
    },
  },
  '/pay/payments/{paymentRef}': {
    get: {
      tags: ['Embed'],
      summary: 'Payment page',
      description:
        'The `redirect_url` of payment/initiate and the address providers send the customer back to ' +
        '(`?return=1`). For a sandbox payment it is the sandbox’s page itself: the amount with Pay and Fail ' +
        '(CONTRACT section 7). For another provider it forwards (302) to the provider once its session exists; ' +
        'until then a page that reloads itself. Back from the provider it asks the provider at once and reloads ' +
        'until the payment is confirmed. A failed payment shows the reason and a Retry button. Arabic (right to ' +
        'left) or English, from `?lang=`, a cookie the switch sets, or Accept-Language.',
      operationId: 'hostedPaymentPage',
      security: NO_CREDENTIALS,
      parameters: [
        pathParam('paymentRef', 'The payment id and its signature, as the platform issued them.'),
        {
          name: 'return',
          in: 'query',
          required: false,
          description: '1 when the provider sends the customer back.',
          schema: { type: 'string', enum: ['1'] },
        },
      ],
      responses: {
        '200': html('Waiting, paid or failed.'),
        '302': redirect('To the provider’s payment page.'),
        '404': html('Unknown payment.'),
        '429': RATE_LIMITED,
      },
    },
    post: {
      tags: ['Embed'],
      summary: 'Sandbox payment: pay or fail',
      description:
        'The sandbox’s Pay/Fail taken on the `redirect_url` itself (CONTRACT section 7): `outcome=paid` or ' +
        '`failed`. The choice is recorded by the sandbox provider, which then delivers its signed webhook to ' +
        '`/webhooks/sandbox`; the answer (200) is the payment page confirming, then showing, the outcome. A post ' +
        'right after payment/initiate waits (a few seconds at most) for the worker to open the sandbox session. ' +
        'The same choice twice is one decision (one order); the other choice after the first is refused (409).',
      operationId: 'hostedPaymentSandboxDecide',
      security: NO_CREDENTIALS,
      parameters: [pathParam('paymentRef', 'The payment id and its signature, as the platform issued them.')],
      requestBody: form({ outcome: { type: 'string', enum: ['paid', 'failed'] } }),
      responses: {
        '200': html('The payment page: confirming, then paid or failed.'),
        '404': html('Unknown payment.'),
        '405': html('Not a sandbox payment.'),
        '409': html('Already decided the other way, or the payment is closed.'),
        '422': html('outcome is not paid or failed.'),
        '429': RATE_LIMITED,
        '503': html('The sandbox session is still being opened; try again (Retry-After).'),
      },
    },
  },
  '/pay/payments/{paymentRef}/retry': {
    post: {
      tags: ['Embed'],
      summary: 'Retry a failed payment',
      description:
        'Starts a new payment of the same checkout with the same method and goes to its page (303).',
      operationId: 'hostedPaymentRetry',
      security: NO_CREDENTIALS,
      parameters: [pathParam('paymentRef', 'The failed payment’s reference.')],
      responses: {
        '303': redirect('To the new payment’s page.'),
        '400': html('Refused (e.g. the order already exists).'),
        '404': html('Unknown payment or expired checkout.'),
        '429': RATE_LIMITED,
      },
    },
  },
  '/sandbox/checkout/{sandboxPaymentId}': {
    get: {
      tags: ['Webhooks'],
      summary: 'Sandbox provider: payment page',
      description:
        'The sandbox provider’s hosted page (CONTRACT section 7): the amount with Pay and Fail buttons. No ' +
        'outside network and no real money.',
      operationId: 'sandboxCheckoutPage',
      security: NO_CREDENTIALS,
      parameters: [pathParam('sandboxPaymentId', 'The sandbox payment id.')],
      responses: { '200': html('The page.'), '404': html('Unknown sandbox payment.'), '429': RATE_LIMITED },
    },
    post: {
      tags: ['Webhooks'],
      summary: 'Sandbox provider: pay or fail',
      description:
        'The customer’s choice (`outcome=paid` or `failed`). Answers 303 back to the platform’s payment page, ' +
        'then delivers a signed webhook to `/webhooks/sandbox` (retried with back-off; SANDBOX_WEBHOOK_URL ' +
        'overrides the target, which is otherwise this server at the address the request arrived on). The ' +
        'same choice twice delivers the same event again; the other choice after the first is refused (409).',
      operationId: 'sandboxCheckoutDecide',
      security: NO_CREDENTIALS,
      parameters: [pathParam('sandboxPaymentId', 'The sandbox payment id.')],
      requestBody: form({ outcome: { type: 'string', enum: ['paid', 'failed'] } }),
      responses: {
        '303': redirect('Back to the store’s payment page.'),
        '404': html('Unknown sandbox payment.'),
        '409': html('Already decided the other way.'),
        '422': html('outcome is not paid or failed.'),
        '429': RATE_LIMITED,
      },
    },
  },
};
