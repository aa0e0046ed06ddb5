import { dashboardAuthRoutes } from './auth-routes';
import { dashboardCareRoutes } from './care-routes';
import { dashboardCouponRoutes } from './coupon-routes';
import { dashboardCatalogueRoutes } from './catalogue-routes';
import { dashboardCustomerRoutes } from './pages/customers/routes';
import { dashboardFivemRoutes } from './pages/fivem/routes';
import { dashboardHomeRoutes } from './pages/home/routes';
import { dashboardOrderRoutes } from './pages/orders/routes';
import { dashboardPaymentRoutes } from './pages/payments/routes';
import { dashboardProductRoutes } from './pages/products/routes';
import { dashboardSettingsRoutes } from './pages/settings/routes';
import { dashboardStaffRoutes } from './pages/staff/routes';
import { dashboardTokenRoutes } from './pages/tokens/routes';
import { dashboardWebhookRoutes } from './pages/webhooks/routes';
import { dashboardSecurityRoutes } from './security-routes';
import { timed } from './server-timing';

/**
 * The merchant dashboard at /merchant (docs/dashboard.md): sign-in and sign-up first, then the store's pages,
 * each answer with its Server-Timing. Each page lives in a folder of its own under pages/ (its routes and
 * its view); the form helpers they share are forms.ts.
 */
export const dashboardRoutes = [
  ...dashboardAuthRoutes,
  ...dashboardHomeRoutes,
  ...dashboardOrderRoutes,
  ...dashboardCustomerRoutes,
  ...dashboardProductRoutes,
  ...dashboardStaffRoutes,
  ...dashboardSettingsRoutes,
  ...dashboardCareRoutes,
  ...dashboardCatalogueRoutes,
  ...dashboardTokenRoutes,
  ...dashboardWebhookRoutes,
  ...dashboardCouponRoutes,
  ...dashboardPaymentRoutes,
  ...dashboardFivemRoutes,
  ...dashboardSecurityRoutes,
].map(timed);
