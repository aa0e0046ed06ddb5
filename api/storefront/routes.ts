import { storefrontAuthRoutes } from './auth/routes';

/** The Storefront API (/api): the store is resolved from the request's Host or Origin. */
export const storefrontRoutes = [...storefrontAuthRoutes];
