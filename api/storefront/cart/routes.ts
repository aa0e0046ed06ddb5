import Joi from 'joi';
import {
  addToCart,
  AddToCartInput,
  applyCartCoupon,
  CART_MESSAGES,
  CartView,
  clearCart,
  getCart,
  removeCartCoupon,
  removeLine,
  setQuantity,
} from '../../../shared/services/cart';
import { INSUFFICIENT_STOCK } from '../../../shared/services/checkout';
import type { Deps } from '../../../shared/deps';
import type { AppContext } from '../../context';
import { storefrontGuards } from '../../guards';
import { id, quantity } from '../../http/fields';
import { defineRoute, reply, Reply } from '../../http/route';
import { ref, storefrontOk } from '../../openapi/components';
import type { ResponseObject } from '../../openapi/types';
import { cart, CUSTOMER_OR_ANONYMOUS, storefrontRefused, unauthenticated } from '../responses';
import { CART_ID_HEADER, cartOwner, ownerOf } from './owner';

/**
 * The cart of a signed-in customer (Authorization) or of an anonymous visitor (X-Cart-Id). Every answer
 * is the whole cart, priced again; an anonymous cart's id also comes back in the X-Cart-Id header.
 */

const guards = (deps: Deps) => [...storefrontGuards(deps), cartOwner()];
const args = (ctx: AppContext) => [ctx.deps.knex, ctx.state.store!, ownerOf(ctx)] as const;
const answer = (view: CartView): Reply<CartView> =>
  reply(view, view.cart_id ? { headers: { [CART_ID_HEADER]: view.cart_id } } : {});

const OWNER =
  '\n\nThe cart is the signed-in customer’s (storefront token) or, without a token, the one named by the ' +
  '`X-Cart-Id` header: the first add answers a new `cart_id` (also in `X-Cart-Id`) for the client to keep. ' +
  'Sent with a token, an anonymous `X-Cart-Id` of this store is merged into the customer’s cart.';

const fields = Joi.object<Record<string, unknown>>()
  .pattern(/^\d{1,6}$/, Joi.any())
  .unknown(false)
  .description(
    'Custom field values keyed by field index, as in the Embed checkout. Image and file fields cannot go in a cart.',
  );

const addBody = Joi.object<AddToCartInput, true>({
  product_id: id().required().description('An active product of this store.'),
  quantity: quantity().default(1),
  subscription_plan: id().description('A plan of the product; required for subscription products.'),
  fields,
});

const itemParams = Joi.object<{ itemId: number }, true>({ itemId: id().required() });
const cartOk: ResponseObject = {
  ...storefrontOk('The cart, priced now.', cart),
  headers: { 'X-Cart-Id': ref('headers', 'X-Cart-Id') },
};
const common = { 200: cartOk, 401: unauthenticated };
const itemNotFound = storefrontRefused('No such line in this cart.', 'not_found', CART_MESSAGES.itemNotFound);

export const storefrontCartRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/cart',
    interface: 'storefront',
    operationId: 'storefrontCart',
    summary: 'The cart',
    description:
      'Every line priced again from the products, plans, options, coupon and tax as they are now. A line whose ' +
      'product went off sale (or whose plan or fields no longer fit) has `available: false` and is left out of ' +
      'the totals; a coupon that no longer applies shows its `error` and gives nothing.' +
      OWNER,
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    responses: { ...common, 422: 'StorefrontValidationFailed' },
    handler: async (ctx) => answer(await getCart(...args(ctx))),
  }),
  defineRoute({
    method: 'post',
    path: '/api/cart/add',
    interface: 'storefront',
    operationId: 'storefrontCartAdd',
    summary: 'Add a product',
    description:
      'The same product, plan and field values again add to that line. Stock is checked against everything the ' +
      'cart holds of the product (and again at checkout).' +
      OWNER,
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: { body: addBody, example: { product_id: 10, quantity: 2 } },
    responses: {
      ...common,
      400: storefrontRefused(
        'Not enough stock, or the cart holds 50 lines.',
        'out_of_stock',
        INSUFFICIENT_STOCK,
      ),
    },
    handler: async (ctx, { body }) => answer(await addToCart(...args(ctx), body)),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/cart/items/{itemId}',
    interface: 'storefront',
    operationId: 'storefrontCartSetQuantity',
    summary: 'Change a line’s quantity',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: {
      params: itemParams,
      body: Joi.object<{ quantity: number }, true>({ quantity: quantity().required() }),
    },
    responses: {
      ...common,
      400: storefrontRefused('Not enough stock.', 'out_of_stock', INSUFFICIENT_STOCK),
      404: itemNotFound,
    },
    handler: async (ctx, { params, body }) =>
      answer(await setQuantity(...args(ctx), params.itemId, body.quantity)),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/cart/items/{itemId}',
    interface: 'storefront',
    operationId: 'storefrontCartRemove',
    summary: 'Remove a line',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: { params: itemParams },
    responses: { ...common, 404: itemNotFound },
    handler: async (ctx, { params }) => answer(await removeLine(...args(ctx), params.itemId)),
  }),
  defineRoute({
    method: 'post',
    path: '/api/cart/coupon',
    interface: 'storefront',
    operationId: 'storefrontCartApplyCoupon',
    summary: 'Apply a coupon',
    description:
      'Checked now against the cart with the messages of the spec’s Coupon errors (400): a product-restricted ' +
      'coupon needs one of its products in the cart and discounts only those; the minimum order is compared ' +
      'with the cart’s subtotal. Replaces any coupon applied before.',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    request: {
      body: Joi.object<{ code: string }, true>({ code: Joi.string().trim().min(1).max(100).required() }),
    },
    responses: {
      ...common,
      400: storefrontRefused(
        'The coupon cannot be used, or the cart is empty.',
        'coupon_invalid',
        'Invalid coupon',
      ),
    },
    handler: async (ctx, { body }) => answer(await applyCartCoupon(...args(ctx), body.code)),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/cart/coupon',
    interface: 'storefront',
    operationId: 'storefrontCartRemoveCoupon',
    summary: 'Remove the coupon',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    responses: { ...common, 422: 'StorefrontValidationFailed' },
    handler: async (ctx) => answer(await removeCartCoupon(...args(ctx))),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/cart',
    interface: 'storefront',
    operationId: 'storefrontCartClear',
    summary: 'Empty the cart',
    security: CUSTOMER_OR_ANONYMOUS,
    guards,
    headers: ['CartId'],
    responses: { ...common, 422: 'StorefrontValidationFailed' },
    handler: async (ctx) => answer(await clearCart(...args(ctx))),
  }),
];
