import { dashboardAuthRoutes } from './auth-routes';
import { dashboardCareRoutes } from './care-routes';
import { dashboardCouponRoutes } from './coupon-routes';
import { dashboardCatalogueRoutes } from './catalogue-routes';
import { dashboardPaymentRoutes, dashboardSettingsRoutes } from './settings-routes';
import { dashboardStoreRoutes } from './store-routes';

/** The merchant dashboard at /merchant (docs/dashboard.md): sign-in and sign-up first, then the store's pages. */
export const dashboardRoutes = [
  ...dashboardAuthRoutes,
  ...dashboardStoreRoutes,
  ...dashboardCareRoutes,
  ...dashboardCatalogueRoutes,
  ...dashboardSettingsRoutes,
  ...dashboardCouponRoutes,
  ...dashboardPaymentRoutes,
];
