import { merchantAbandonedRoutes } from './abandoned-routes';
import { merchantCreatorRoutes } from './creator-routes';
import { merchantSaleRoutes } from './sales-routes';

/** Growth (docs/growth.md): timed sales, creators, abandoned-checkout figures. */
export const merchantGrowthRoutes = [
  ...merchantSaleRoutes,
  ...merchantCreatorRoutes,
  ...merchantAbandonedRoutes,
];
