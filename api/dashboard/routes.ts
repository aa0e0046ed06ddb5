import { dashboardCategoryRoutes } from './pages/categories/routes';
import { dashboardCouponRoutes } from './pages/coupons/routes';
import { dashboardGrowthRoutes } from './pages/growth/routes';
import { dashboardLicenseRoutes } from './pages/licenses/routes';
import { dashboardCatalogueRoutes } from './pages/product-keys/routes';
import { dashboardFileRoutes } from './pages/files/routes';
import { dashboardEinvoicingRoutes } from './pages/einvoicing/routes';
import { dashboardReviewRoutes } from './pages/reviews/routes';
import { dashboardSecondFactorRoutes } from './pages/second-factor/routes';
import { dashboardSecurityRoutes } from './pages/security/routes';
import { dashboardSessionRoutes } from './pages/session/routes';
import { dashboardSignInRoutes } from './pages/sign-in/routes';
import { dashboardCustomerRoutes } from './pages/customers/routes';
import { dashboardFivemRoutes } from './pages/fivem/routes';
import { dashboardHomeRoutes } from './pages/home/routes';
import { dashboardLaunchRoutes } from './pages/launch/routes';
import { dashboardOrderReloadRoutes } from './pages/orders/reload';
import { dashboardOrderRoutes } from './pages/orders/routes';
import { dashboardPaymentRoutes } from './pages/payments/routes';
import { dashboardProductRoutes } from './pages/products/routes';
import { dashboardSettingsRoutes } from './pages/settings/routes';
import { dashboardStaffRoutes } from './pages/staff/routes';
import { dashboardTokenRoutes } from './pages/tokens/routes';
import { dashboardStorePageRoutes } from './pages/store-page/routes';
import { dashboardWebhookRoutes } from './pages/webhooks/routes';
import { dashboardFraudRoutes } from './pages/fraud/routes';
import { dashboardPreferencesRoutes } from './pages/preferences/routes';
import { timed } from './server-timing';

/**
 * The merchant dashboard at /merchant (docs/dashboard.md): sign-in and sign-up first, then the store's pages,
 * each answer with its Server-Timing. Reads and writes go through the same services as the Merchant API
 * (orders, transitions), so a status the dashboard sets is the one the API reports, with the same audit row
 * and webhooks; each page names the permission it needs (shared/services/staff/roles.ts). Each page
 * lives in a folder of its own under pages/ (its routes and its view); the form helpers they share are
 * forms.ts.
 */
export const dashboardRoutes = [
  ...dashboardSignInRoutes,
  ...dashboardSecondFactorRoutes,
  ...dashboardSessionRoutes,
  ...dashboardHomeRoutes,
  ...dashboardLaunchRoutes,
  ...dashboardOrderReloadRoutes,
  ...dashboardOrderRoutes,
  ...dashboardCustomerRoutes,
  ...dashboardProductRoutes,
  ...dashboardStaffRoutes,
  ...dashboardSettingsRoutes,
  ...dashboardLicenseRoutes,
  ...dashboardReviewRoutes,
  ...dashboardCatalogueRoutes,
  ...dashboardFileRoutes,
  ...dashboardTokenRoutes,
  ...dashboardStorePageRoutes,
  ...dashboardWebhookRoutes,
  ...dashboardCouponRoutes,
  ...dashboardCategoryRoutes,
  ...dashboardPaymentRoutes,
  ...dashboardFivemRoutes,
  ...dashboardSecurityRoutes,
  ...dashboardEinvoicingRoutes,
  ...dashboardGrowthRoutes,
  ...dashboardFraudRoutes,
  ...dashboardPreferencesRoutes,
].map(timed);
