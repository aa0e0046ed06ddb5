import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { storefrontGuards } from '../guards';
import { registerAnalyticsRoutes } from './analytics/router';
import { registerAuthRoutes } from './auth/router';
import { registerCartRoutes } from './cart/router';
import { registerCheckoutRoutes } from './checkout/router';
import { registerProductRoutes } from './products/router';
import { registerReviewRoutes } from './reviews/router';
import { registerWishlistRoutes } from './wishlist/router';

/**
 * The Storefront API (/api): the store is resolved from the request's Host or Origin. Analytics
 * collection lives under the same prefix with guards of its own (no general limit; an events limit).
 */
export function storefrontRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/api' });
  const guards = storefrontGuards(deps);
  registerAuthRoutes(router, guards);
  registerProductRoutes(router, guards);
  registerCartRoutes(router, guards);
  registerCheckoutRoutes(router, guards);
  registerWishlistRoutes(router, guards);
  registerReviewRoutes(router, guards);
  registerAnalyticsRoutes(router, deps);
  return router;
}
