import { merchantCategoryRoutes } from './categories/routes';
import { merchantOrderRoutes } from './orders/routes';
import { merchantProductRoutes } from './products/routes';
import { merchantFileRoutes } from './files/routes';
import { merchantStoreRoutes } from './store/routes';
import { merchantSubscriptionRoutes } from './subscriptions/routes';
import { merchantWebhookRoutes } from './webhooks/routes';
import { merchantEntitlementRoutes } from './licenses/entitlement-routes';
import { merchantLicensePolicyRoutes } from './licenses/policy-routes';
import { merchantLicenseRoutes } from './licenses/routes';
import { merchantInvoiceRoutes } from './invoices/routes';
import { merchantRefundRoutes } from './refunds/routes';
import { merchantCouponRoutes } from './coupons/routes';
import { merchantTokenRoutes } from './tokens/routes';
import { merchantAuditRoutes } from './audit/routes';
import { merchantGrowthRoutes } from './growth/routes';
import { merchantFraudRoutes } from './fraud/routes';

/**
 * The Merchant API (/shawarma): every route behind the merchant guards (bearer merchant token of a
 * paid-plan store, 60 requests per minute per token). The license routes (/shawarma/.../licenses) use
 * the license service (shared/services/licenses).
 */
export const merchantRoutes = [
  ...merchantStoreRoutes,
  ...merchantOrderRoutes,
  ...merchantProductRoutes,
  ...merchantFileRoutes,
  ...merchantCategoryRoutes,
  ...merchantSubscriptionRoutes,
  ...merchantWebhookRoutes,
  ...merchantLicenseRoutes,
  ...merchantInvoiceRoutes,
  ...merchantRefundRoutes,
  ...merchantCouponRoutes,
  ...merchantTokenRoutes,
  ...merchantAuditRoutes,
  ...merchantEntitlementRoutes,
  ...merchantLicensePolicyRoutes,
  ...merchantGrowthRoutes,
  ...merchantFraudRoutes,
];
