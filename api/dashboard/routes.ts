import { dashboardAuthRoutes } from './auth-routes';
import { dashboardCareRoutes } from './care-routes';
import { dashboardCouponRoutes } from './coupon-routes';
import { dashboardCatalogueRoutes } from './catalogue-routes';
import { dashboardFileRoutes } from './pages/files/routes';
import { dashboardSecurityRoutes } from './security-routes';
import { dashboardPaymentRoutes, dashboardSettingsRoutes } from './settings-routes';
import { timed } from './server-timing';
import { dashboardStoreRoutes } from './store-routes';

/**
 * The merchant dashboard at /merchant (docs/dashboard.md): sign-in and sign-up first, then the store's pages,
 * each answer with its Server-Timing.
 */
export const dashboardRoutes = [
  ...dashboardAuthRoutes,
  ...dashboardStoreRoutes,
  ...dashboardCareRoutes,
  ...dashboardCatalogueRoutes,
  ...dashboardFileRoutes,
  ...dashboardSettingsRoutes,
  ...dashboardCouponRoutes,
  ...dashboardPaymentRoutes,
  ...dashboardSecurityRoutes,
].map(timed);
