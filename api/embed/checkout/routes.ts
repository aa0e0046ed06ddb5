import { buyerFromCustomer, buyerFromGuest, createCheckout } from '../../../shared/services/checkout';
import { buyerLocale } from '../../pay/i18n';
import { requestDeps } from '../../request-deps';
import { EMBED_ABILITIES } from '../../../shared/services/tokens';
import { embedOk, schemaRef } from '../../openapi/components';
import { defineRoute, RouteDefinition } from '../../http/route';
import { customerAuth } from '../../middleware/customer-auth';
import { embedGuards } from '../../guards';
import { refused } from '../responses';
import { EMBED_WITH_TOKEN } from '../security';
import { formBody, uploadsOf } from './multipart';
import * as schemas from './schemas';

/**
 * POST /api/embed/checkout (customer token with embed:checkout, of this store) and
 * POST /api/embed/guest/checkout. Both take JSON or multipart/form-data; the multipart body is read only
 * after the guards have passed, so a refused caller uploads nothing.
 */

const PRICING =
  '**Pricing.** Unit price: the subscription plan’s price when one is chosen, else the sale price when set, ' +
  'else the price. Each chosen `select` option adds its price to every unit. Subtotal = (unit price + ' +
  'options) × quantity. The coupon’s discount comes off the subtotal: a percentage rounded half up to the ' +
  'minor unit (never above 100%), a fixed amount never above the subtotal. Tax follows the store’s setting, ' +
  'on the discounted amount: `exclusive` adds VAT on top (rounded half up); `inclusive` means prices already ' +
  'contain VAT, so the total is unchanged and `tax_amount` shows the VAT inside it (net × rate / (1 + rate)); ' +
  '`none` charges no tax. All amounts are decimal strings with two places.';

const CHECKOUT_RULES =
  PRICING +
  '\n\n**Payment methods** are the store’s active methods whose minimum and maximum amounts admit the total, ' +
  'narrowed to the coupon’s `payment_restrictions` when it has any; when none is left the answer is 400 ' +
  '"No payment method is available for this order".' +
  '\n\n**Free orders.** A total of zero creates the order at once (`type: free_order`, with `order_id`) and ' +
  'queues its fulfilment; coupon uses are counted atomically as the order is created, so a coupon used up ' +
  'meanwhile answers 400 "Coupon has reached maximum uses" and nothing is written.' +
  '\n\n**Reservations.** A code-key product reserves `quantity` available keys and a product with finite ' +
  'stock takes `quantity` units, both released if the checkout expires unpaid. A `quantity` above the ' +
  'product’s `max_per_order` (default 10) is a 422 naming `quantity`. Not enough: 400 ' +
  '"Insufficient stock". The checkout lives `CHECKOUT_TTL_SECONDS` (default 3600); afterwards payment calls ' +
  'and the status endpoint answer 404.' +
  '\n\n**Errors.** 422 (`errors` by field) for invalid input: a `product_id` that is not an active product of ' +
  'this store, a `subscription_plan` missing for a subscription product or not a plan of the product, custom ' +
  'field values (`fields.{index}`) and uploads (`field_files.{index}`). 400 for a coupon refused as by ' +
  'apply-coupon (same messages), insufficient stock, or no payment method. 403 `checkout_blocked` when a ' +
  'fraud control of the store refuses the buyer (block lists, daily limits; docs/fraud.md).' +
  '\n\n**Bodies.** `application/json`, or `multipart/form-data` to upload files. In multipart, custom values ' +
  'are parts `fields[{index}]` or `fields.{index}`, or one part `fields` holding a JSON object; files are ' +
  'parts `field_files.{index}`: image fields JPG, PNG, GIF up to 10 MB; file fields PDF, DOC, DOCX, TXT, ZIP ' +
  'up to 20 MB. Files are judged by their content (magic numbers; DOCX = a ZIP with `word/` entries; TXT = ' +
  'UTF-8 without NUL bytes), and a file name’s extension must agree with it. A refused upload stores nothing.';

const responses: RouteDefinition['responses'] = {
  200: embedOk(
    'The checkout session (payment_required) or the created order (free_order).',
    schemaRef('CheckoutSession'),
    {
      success: true,
      data: {
        type: 'payment_required',
        checkout_id: 42,
        checkout_url: 'N3q0cWfV0yq8m1G0u7zY5x2bZ8s0eYq3kQ9mB2p4LrA',
        payment_url: 'https://shop.example.test/pay/N3q0cWfV0yq8m1G0u7zY5x2bZ8s0eYq3kQ9mB2p4LrA',
        reveal_token: 'q9ZkR2mX7vT0bW4yL1nE8sC5aU3dF6hJ9gK2pQ7rV0w',
        amount: '103.50',
        subtotal: '100.00',
        discount_amount: '10.00',
        tax_amount: '13.50',
        payment_methods: [{ id: 'card', name_ar: 'بطاقة ائتمانية', name_en: 'Credit card', icon: 'card' }],
      },
    },
  ),
  400: refused(
    'Coupon refused (apply-coupon’s messages), insufficient stock, or no payment method.',
    'Insufficient stock',
  ),
  403: refused(
    'A fraud control of the store refused the checkout (docs/fraud.md), `error_code` `checkout_blocked`; ' +
      'nothing was created. The answer never says which control.',
    'This checkout cannot be completed.',
  ),
  413: refused('The body is larger than the checkout accepts.', 'Request body is too large'),
};

const BODY_TYPES = ['application/json', 'multipart/form-data'] as const;

export const embedCheckoutRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/embed/checkout',
    interface: 'embed',
    operationId: 'embedCheckout',
    summary: 'Create a checkout (signed-in customer)',
    description:
      'Bearer token with the ability `embed:checkout`, issued for the embed key’s store (a token of another ' +
      'store answers 401; a storefront token 403). The customer’s details come from the token.\n\n' +
      CHECKOUT_RULES,
    security: EMBED_WITH_TOKEN,
    guards: (deps) => [
      ...embedGuards(deps),
      customerAuth({ kind: 'embed', abilities: [EMBED_ABILITIES[0]] }),
      formBody(),
    ],
    request: { body: schemas.checkoutBody, bodyTypes: BODY_TYPES },
    responses,
    handler: async (ctx, { body }) =>
      createCheckout(
        requestDeps(ctx),
        ctx.state.store!,
        { ...buyerFromCustomer(ctx.state.customer!), locale: buyerLocale(ctx) },
        body,
        uploadsOf(ctx),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/api/embed/guest/checkout',
    interface: 'embed',
    operationId: 'embedGuestCheckout',
    summary: 'Create a checkout (guest)',
    description:
      'No sign-in: the customer’s details come with the request. Answers as the signed-in checkout.\n\n' +
      CHECKOUT_RULES,
    guards: (deps) => [...embedGuards(deps), formBody()],
    request: { body: schemas.guestCheckoutBody, bodyTypes: BODY_TYPES },
    responses,
    handler: async (ctx, { body }) => {
      return createCheckout(
        requestDeps(ctx),
        ctx.state.store!,
        buyerFromGuest(body, buyerLocale(ctx)),
        body,
        uploadsOf(ctx),
      );
    },
  }),
];
