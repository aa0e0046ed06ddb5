import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { embedGuards } from '../guards';
import { registerAuthRoutes } from './auth/router';
import { registerCheckoutRoutes } from './checkout/router';
import { registerCouponRoutes } from './coupons/router';
import { registerPaymentRoutes } from './payments/router';
import { registerProductRoutes } from './product/router';

/** The Embed API (/api/embed): every route behind the embed guards but payment status (public). */
export function embedRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/api/embed' });
  const guards = embedGuards(deps);
  registerAuthRoutes(router, guards);
  registerProductRoutes(router, guards);
  registerCouponRoutes(router, guards);
  registerCheckoutRoutes(router, guards);
  registerPaymentRoutes(router, guards, deps);
  return router;
}
