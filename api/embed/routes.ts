import { embedAuthRoutes } from './auth/routes';
import { embedCheckoutRoutes } from './checkout/routes';
import { embedCouponRoutes } from './coupons/routes';
import { embedPaymentRoutes } from './payments/routes';
import { embedProductRoutes } from './product/routes';
import { embedRevealRoutes } from './reveal/routes';

/** The Embed API (/api/embed): every route behind the embed guards but payment status (public). */
export const embedRoutes = [
  ...embedAuthRoutes,
  ...embedProductRoutes,
  ...embedCouponRoutes,
  ...embedCheckoutRoutes,
  ...embedPaymentRoutes,
  ...embedRevealRoutes,
];
