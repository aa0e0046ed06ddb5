import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { merchantGuards } from '../guards';
import { registerCategoryRoutes } from './categories/router';
import { registerOrderRoutes } from './orders/router';
import { registerProductRoutes } from './products/router';
import { registerStoreRoutes } from './store/router';
import { registerSubscriptionRoutes } from './subscriptions/router';
import { registerWebhookRoutes } from './webhooks/router';

/**
 * The Merchant API (/shawarma): every route behind the merchant guards (bearer merchant token of a
 * paid-plan store, 60 requests per minute per token). The license routes (/shawarma/.../licenses) are
 * the License branch's (api/merchant/licenses/).
 */
export function merchantRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/shawarma' });
  const guards = merchantGuards(deps);
  registerStoreRoutes(router, guards);
  registerOrderRoutes(router, guards);
  registerProductRoutes(router, guards);
  registerCategoryRoutes(router, guards);
  registerSubscriptionRoutes(router, guards);
  registerWebhookRoutes(router, guards);
  return router;
}
