import { storefrontAnalyticsRoutes } from './analytics/routes';
import { storefrontAuthRoutes } from './auth/routes';
import { storefrontCartRoutes } from './cart/routes';
import { storefrontCheckoutRoutes } from './checkout/routes';
import { storefrontProductRoutes } from './products/routes';
import { storefrontReviewRoutes } from './reviews/routes';
import { storefrontWishlistRoutes } from './wishlist/routes';

/** The Storefront API (/api): the store is resolved from the request's Host or Origin. */
export const storefrontRoutes = [
  ...storefrontAuthRoutes,
  ...storefrontProductRoutes,
  ...storefrontCartRoutes,
  ...storefrontCheckoutRoutes,
  ...storefrontWishlistRoutes,
  ...storefrontReviewRoutes,
  ...storefrontAnalyticsRoutes,
];
