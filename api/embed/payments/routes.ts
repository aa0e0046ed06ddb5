import Joi from 'joi';
import { requestDeps } from '../../request-deps';
import type { PaymentMethodId } from '../../../db/models';
import { initiatePayment, initiationAnswer, cachedPaymentStatus } from '../../../shared/services/payments';
import { EMBED_ABILITIES } from '../../../shared/services/tokens';
import { embedOk, schemaRef } from '../../openapi/components';
import { opaque, paymentMethod } from '../../http/fields';
import { defineRoute, RouteDefinition, RouteInput } from '../../http/route';
import type { AppContext } from '../../context';
import { customerAuth } from '../../middleware/customer-auth';
import { embedGuards, paymentStatusGuards } from '../../guards';
import { cachedRead } from '../../middleware/rate-limit';
import { refused } from '../responses';
import { EMBED_WITH_TOKEN } from '../security';

/**
 * Payment initiation (authenticated and guest, behind the embed guards) and the public payment status,
 * which carries no embed key and has its own per-IP limit.
 */

const INITIATE_RULES =
  'The API never calls a provider while answering. For a hosted-page provider (sandbox, Moyasar for card, ' +
  'mada, Apple Pay and STC Pay, Coinbase Commerce for crypto) it records a pending payment and answers ' +
  '`redirect` with the platform’s payment page (`/pay/payments/{ref}`), which forwards to the provider as soon ' +
  'as the provider session exists (a worker creates it), and shows the error with a Retry button if the ' +
  'provider refused or could not be reached. Initiating again while that session is open returns the same page.' +
  '\n\n**PayPal**: with a pay-by-link configured, `redirect` to that link (a PayPal.me link gets the amount ' +
  'appended when its currency is one PayPal.me takes); with only an e-mail, `paypal_manual`. **Bank transfer**: ' +
  '`bank_transfer` with the store’s details. For both the order is created at once in Under review (2) and ' +
  'waits for the merchant to confirm the payment: the answer carries its `order_id` and `reference` (`#id`, ' +
  'as the merchant sees it), `payment/status` answers `is_paid: false` and `order_id: null` until then, and a ' +
  'further initiation answers 400 "Order already created for this checkout".' +
  '\n\n**Refusals**: 404 unknown or expired checkout (or, authenticated, a checkout of another customer); 400 ' +
  'order already created; 400 method not configured for the store; 400 a method outside the coupon’s ' +
  '`payment_restrictions`; 400 a method whose minimum or maximum amount excludes the total; 422 a ' +
  '`payment_method` that is not one of the seven ids.';

type InitiateBody = { checkout_url: string; payment_method: PaymentMethodId };

const initiateBody = Joi.object<InitiateBody, true>({
  checkout_url: opaque().required().description('From the checkout response.'),
  payment_method: paymentMethod().required(),
});

const initiateResponses: RouteDefinition['responses'] = {
  200: embedOk('How to pay.', schemaRef('PaymentInitiation'), {
    success: true,
    data: { type: 'redirect', redirect_url: 'https://shop.example.test/pay/payments/42-5f0c9a1e' },
  }),
  400: refused(
    'Order already created, method not configured, not allowed by the coupon, or outside its amount bounds.',
    'Order already created for this checkout',
  ),
  404: refused('Unknown or expired checkout.', 'Checkout session expired or not found'),
};

const example = { checkout_url: 'Qm9…', payment_method: 'card' };

/** Both forms: the token's customer pays one of their own checkouts; a guest any guest checkout of the store. */
function initiate(customerOf: (ctx: AppContext) => number | null) {
  return async (ctx: AppContext, { body }: RouteInput<unknown, unknown, InitiateBody>) => {
    const selector = {
      checkoutUrl: body.checkout_url,
      storeId: ctx.state.store!.id,
      customerId: customerOf(ctx),
    };
    return initiationAnswer(
      await initiatePayment(requestDeps(ctx, { buyer: false }), selector, body.payment_method),
      body.checkout_url,
    );
  };
}

export const embedPaymentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/embed/payment/initiate',
    interface: 'embed',
    operationId: 'embedPaymentInitiate',
    summary: 'Start paying a checkout (authenticated)',
    description: INITIATE_RULES,
    security: EMBED_WITH_TOKEN,
    guards: (deps) => [
      ...embedGuards(deps),
      customerAuth({ kind: 'embed', abilities: [EMBED_ABILITIES[0]] }),
    ],
    request: { body: initiateBody, example },
    responses: initiateResponses,
    handler: initiate((ctx) => ctx.state.customer!.id),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/guest/payment/initiate',
    interface: 'embed',
    operationId: 'embedGuestPaymentInitiate',
    summary: 'Start paying a checkout (guest)',
    description: INITIATE_RULES,
    guards: embedGuards,
    request: { body: initiateBody, example },
    responses: initiateResponses,
    handler: initiate(() => null),
  }),
  defineRoute({
    method: 'get',
    path: '/api/embed/payment/status/{checkoutUrl}',
    interface: 'embed',
    operationId: 'embedPaymentStatus',
    summary: 'Payment status of a checkout',
    description:
      'Public: no embed key, no token (the checkout URL is the secret). Cheap enough to poll every 2 to 3 ' +
      'seconds (one indexed query), limited to 120 requests per minute per IP. `is_paid` becomes true once ' +
      'the payment is confirmed and the order exists; `order_id` is null until then. A checkout with an order ' +
      'keeps answering after its lifetime; an unpaid one past it answers 404.',
    security: [],
    guards: cachedRead(paymentStatusGuards),
    request: {
      params: Joi.object<{ checkoutUrl: string }, true>({
        checkoutUrl: Joi.string().max(200).required().description('The checkout_url of the checkout.'),
      }),
    },
    // No embed key: no 401 or 403.
    omitStandard: [401, 403],
    responses: {
      200: embedOk('The status.', schemaRef('PaymentStatus'), {
        success: true,
        data: { is_paid: true, order_id: 1234 },
      }),
      404: refused('Unknown or expired checkout.', 'Checkout not found'),
    },
    handler: (ctx, { params }) => cachedPaymentStatus(ctx.deps, params.checkoutUrl),
  }),
];
