import Joi from 'joi';
import type { PaymentMethodId } from '../../../db/models';
import { ValidationError } from '../../../shared/errors';
import { CART_MESSAGES, checkoutCart } from '../../../shared/services/cart';
import { Buyer, buyerFromCustomer, buyerFromGuest, GuestDetails } from '../../../shared/services/checkout';
import { requestDeps } from '../../request-deps';
import { initiatePayment, initiationAnswer, cachedPaymentStatus } from '../../../shared/services/payments';
import type { Deps } from '../../../shared/deps';
import type { AppContext } from '../../context';
import { storefrontGuards } from '../../guards';
import { cachedRead } from '../../middleware/rate-limit';
import {
  countryCodeDigits,
  customerName,
  email,
  opaque,
  paymentMethod,
  phoneDigits,
} from '../../http/fields';
import { defineRoute } from '../../http/route';
import { schemaRef, storefrontOk } from '../../openapi/components';
import { buyerLocale } from '../../pay/i18n';
import { cartOwner, ownerOf } from '../cart/owner';
import { CUSTOMER_OR_ANONYMOUS, storefrontRefused, unauthenticated } from '../responses';
import { CHECKOUT_BLOCKED } from '../../../shared/services/fraud/screen';

/**
 * POST /api/checkout turns the cart into one checkout of several items, then it is paid exactly as with
 * the Embed API: POST /api/payment/initiate, the hosted `payment_url`, GET /api/payment/status/{checkoutUrl}.
 */

const guards = (deps: Deps) => [...storefrontGuards(deps), cartOwner()];

interface CheckoutBody {
  customer_note?: string;
  creator_code?: string;
  customer_first_name?: string;
  customer_last_name?: string;
  customer_email?: string;
  customer_phone?: string;
  customer_country_code?: string;
}

const GUEST_FIELDS = [
  'customer_first_name',
  'customer_last_name',
  'customer_email',
  'customer_phone',
  'customer_country_code',
] as const;

const checkoutBody = Joi.object<CheckoutBody, true>({
  customer_note: Joi.string().trim().max(500).allow(''),
  creator_code: Joi.string()
    .trim()
    .max(100)
    .allow('')
    .description('A creator’s code (case-insensitive): the order credits that creator (docs/growth.md).'),
  customer_first_name: customerName().description('Required without a customer token.'),
  customer_last_name: customerName().description('Required without a customer token.'),
  customer_email: email().description('Required without a customer token.'),
  customer_phone: phoneDigits().description('Required without a customer token; kept as digits.'),
  customer_country_code: countryCodeDigits().description('Required without a customer token.'),
});

/** The token's customer, or the anonymous visitor's own details (every one of them required, 422). */
function buyerOf(ctx: AppContext, body: CheckoutBody): Buyer {
  if (ctx.state.customer) return { ...buyerFromCustomer(ctx.state.customer), locale: buyerLocale(ctx) };
  const missing = GUEST_FIELDS.filter((f) => !body[f]);
  if (missing.length > 0) {
    throw new ValidationError(Object.fromEntries(missing.map((f) => [f, [`${f} is required`]])));
  }
  return buyerFromGuest(body as CheckoutBody & GuestDetails, buyerLocale(ctx));
}

export const storefrontCheckoutRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/checkout',
    interface: 'storefront',
    operationId: 'storefrontCheckout',
    summary: 'Check the cart out',
    description:
      'The cart’s lines become one checkout (one order, one payment, one order item per line), priced and checked ' +
      'again, with the cart’s coupon; code keys and stock are reserved for every line or for none (400 ' +
      '"Insufficient stock"). The answer is the Embed checkout’s: `payment_required` with `checkout_url` and ' +
      '`payment_url`, or `free_order` at a total of zero. The cart is emptied once the checkout exists.' +
      '\n\nSigned in (storefront token): the customer buys; only `customer_note` is read. Anonymous ' +
      '(`X-Cart-Id`): the buyer’s details are required, as in the Embed guest checkout.',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: {
      body: checkoutBody,
      example: {
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_phone: '500000001',
        customer_country_code: '966',
      },
    },
    responses: {
      200: storefrontOk('A checkout session.', schemaRef('CheckoutSession')),
      400: storefrontRefused(
        'Empty cart, a line no longer available, not enough stock, a coupon that cannot be used, or no payment method.',
        'invalid_request',
        CART_MESSAGES.empty,
      ),
      401: unauthenticated,
      403: storefrontRefused(
        'A fraud control of the store refused the checkout (docs/fraud.md); nothing was created.',
        'checkout_blocked',
        CHECKOUT_BLOCKED,
      ),
    },
    handler: (ctx, { body }) =>
      checkoutCart(requestDeps(ctx), ctx.state.store!, ownerOf(ctx), buyerOf(ctx, body), {
        customer_note: body.customer_note || undefined,
        creator_code: body.creator_code || undefined,
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/payment/initiate',
    interface: 'storefront',
    operationId: 'storefrontPaymentInitiate',
    summary: 'Start paying a checkout',
    description:
      'As POST /api/embed/payment/initiate, for a checkout of this store. With a customer token only that ' +
      'customer’s checkouts are found.',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: {
      body: Joi.object<{ checkout_url: string; payment_method: PaymentMethodId }, true>({
        checkout_url: opaque().required(),
        payment_method: paymentMethod().required(),
      }),
    },
    responses: {
      200: storefrontOk('How to pay.', schemaRef('PaymentInitiation')),
      400: storefrontRefused(
        'Order already created, or a method not configured, not allowed by the coupon or outside its bounds.',
        'order_already_created',
        'Order already created for this checkout',
      ),
      401: unauthenticated,
      404: storefrontRefused(
        'Unknown or expired checkout.',
        'checkout_not_found',
        'Checkout session expired or not found',
      ),
    },
    handler: async (ctx, { body }) => {
      const selector = {
        checkoutUrl: body.checkout_url,
        storeId: ctx.state.store!.id,
        customerId: ctx.state.customer?.id ?? null,
      };
      return initiationAnswer(
        await initiatePayment(requestDeps(ctx, { buyer: false }), selector, body.payment_method),
        body.checkout_url,
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/payment/status/{checkoutUrl}',
    interface: 'storefront',
    operationId: 'storefrontPaymentStatus',
    summary: 'Payment status of a checkout',
    description: 'As GET /api/embed/payment/status/{checkoutUrl}: `is_paid` and `order_id`.',
    guards: cachedRead(storefrontGuards),
    request: { params: Joi.object<{ checkoutUrl: string }, true>({ checkoutUrl: opaque().required() }) },
    responses: {
      200: storefrontOk('Paid or not.', schemaRef('PaymentStatus')),
      404: storefrontRefused('Unknown checkout.', 'checkout_not_found', 'Checkout not found'),
    },
    handler: (ctx, { params }) => cachedPaymentStatus(ctx.deps, params.checkoutUrl),
  }),
];
