import Joi from 'joi';
import { NotFoundError } from '../../../shared/errors';
import { parseProductId } from '../../../shared/services/catalogue';
import {
  addToWishlist,
  clearWishlist,
  inWishlist,
  removeFromWishlist,
  WISHLIST_MESSAGES,
  wishlistCount,
  wishlistItems,
} from '../../../shared/services/wishlist';
import type { Deps } from '../../../shared/deps';
import type { AppContext } from '../../context';
import { storefrontGuards } from '../../guards';
import { id } from '../../http/fields';
import { defineRoute, reply } from '../../http/route';
import { customerAuth } from '../../middleware/customer-auth';
import { object, storefrontOk } from '../../openapi/components';
import { CUSTOMER_TOKEN, productCard, storefrontRefused, unauthenticated } from '../responses';

/**
 * The six wishlist endpoints of the spec, each behind a storefront customer token of this store (401
 * otherwise, an Embed token included). `/wishlist/clear` and `/wishlist/count` come before the
 * `{productId}` routes so they are never read as a product id.
 */

const guards = (deps: Deps) => [...storefrontGuards(deps), customerAuth({ kind: 'storefront' })];
const who = (ctx: AppContext) => [ctx.deps.knex, ctx.state.store!, ctx.state.customer!] as const;
const done = (message: string) =>
  storefrontOk(message, { type: 'null' }, { success: true, data: null, message });

const invalidProduct = WISHLIST_MESSAGES.invalidProduct;
const productIdBody = Joi.object<{ product_id: number }, true>({
  product_id: id().required().description('An active product of this store.').messages({
    'number.base': invalidProduct,
    'number.integer': invalidProduct,
    'number.positive': invalidProduct,
    'number.max': invalidProduct,
  }),
});

export const storefrontWishlistRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/wishlist',
    interface: 'storefront',
    operationId: 'storefrontWishlist',
    summary: 'The wishlist',
    description: 'Newest first; only products still on sale in this store.',
    security: CUSTOMER_TOKEN,
    guards,
    responses: {
      200: storefrontOk(
        'The products and their count.',
        object({ items: { type: 'array', items: productCard }, count: { type: 'integer' } }),
      ),
      401: unauthenticated,
    },
    handler: (ctx) => wishlistItems(...who(ctx)),
  }),
  defineRoute({
    method: 'post',
    path: '/api/wishlist',
    interface: 'storefront',
    operationId: 'storefrontWishlistAdd',
    summary: 'Add a product',
    description: 'One entry per product: of simultaneous adds one succeeds and the others answer 400.',
    security: CUSTOMER_TOKEN,
    guards,
    request: { body: productIdBody, example: { product_id: 10 } },
    responses: {
      200: done(WISHLIST_MESSAGES.added),
      400: storefrontRefused('Already in the wishlist.', 'wishlist_already_added', WISHLIST_MESSAGES.already),
      401: unauthenticated,
    },
    handler: async (ctx, { body }) => {
      await addToWishlist(...who(ctx), body.product_id);
      return reply(null, { message: WISHLIST_MESSAGES.added });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/wishlist/count',
    interface: 'storefront',
    operationId: 'storefrontWishlistCount',
    summary: 'How many products the wishlist holds',
    security: CUSTOMER_TOKEN,
    guards,
    responses: {
      200: storefrontOk('The count.', object({ count: { type: 'integer' } })),
      401: unauthenticated,
    },
    handler: async (ctx) => ({ count: await wishlistCount(...who(ctx)) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/wishlist/clear',
    interface: 'storefront',
    operationId: 'storefrontWishlistClear',
    summary: 'Empty the wishlist',
    security: CUSTOMER_TOKEN,
    guards,
    responses: { 200: done(WISHLIST_MESSAGES.cleared), 401: unauthenticated },
    handler: async (ctx) => {
      await clearWishlist(...who(ctx));
      return reply(null, { message: WISHLIST_MESSAGES.cleared });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/wishlist/check/{productId}',
    interface: 'storefront',
    operationId: 'storefrontWishlistCheck',
    summary: 'Whether a product is in the wishlist',
    security: CUSTOMER_TOKEN,
    guards,
    request: { params: Joi.object<{ productId: number }, true>({ productId: id().required() }) },
    responses: {
      200: storefrontOk('In the wishlist or not.', object({ in_wishlist: { type: 'boolean' } })),
      401: unauthenticated,
    },
    handler: async (ctx, { params }) => ({ in_wishlist: await inWishlist(...who(ctx), params.productId) }),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/wishlist/{productId}',
    interface: 'storefront',
    operationId: 'storefrontWishlistRemove',
    summary: 'Remove a product',
    description: 'A product that is not in the wishlist (or a path that cannot name one) answers 404.',
    security: CUSTOMER_TOKEN,
    guards,
    request: {
      params: Joi.object<{ productId: string }, true>({
        productId: Joi.string().max(20).required().description('The product id.'),
      }),
    },
    responses: {
      200: done(WISHLIST_MESSAGES.removed),
      401: unauthenticated,
      404: storefrontRefused('Not in the wishlist.', 'wishlist_item_not_found', WISHLIST_MESSAGES.notIn),
    },
    handler: async (ctx, { params }) => {
      const productId = parseProductId(params.productId);
      if (productId === null)
        throw new NotFoundError(WISHLIST_MESSAGES.notIn).withCode('wishlist_item_not_found');
      await removeFromWishlist(...who(ctx), productId);
      return reply(null, { message: WISHLIST_MESSAGES.removed });
    },
  }),
];
