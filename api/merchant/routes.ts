import { merchantCategoryRoutes } from './categories/routes';
import { merchantOrderRoutes } from './orders/routes';
import { merchantProductRoutes } from './products/routes';
import { merchantStoreRoutes } from './store/routes';
import { merchantSubscriptionRoutes } from './subscriptions/routes';
import { merchantWebhookRoutes } from './webhooks/routes';

/**
 * The Merchant API (/shawarma): every route behind the merchant guards (bearer merchant token of a
 * paid-plan store, 60 requests per minute per token). The license routes (/shawarma/.../licenses) are
 * the License branch's (api/merchant/licenses/).
 */
export const merchantRoutes = [
  ...merchantStoreRoutes,
  ...merchantOrderRoutes,
  ...merchantProductRoutes,
  ...merchantCategoryRoutes,
  ...merchantSubscriptionRoutes,
  ...merchantWebhookRoutes,
];
