import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { storefrontGuards } from '../guards';
import { registerAuthRoutes } from './auth/router';

/** The Storefront API (/api): the store is resolved from the request's Host or Origin. */
export function storefrontRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/api' });
  const guards = storefrontGuards(deps);
  registerAuthRoutes(router, guards);
  return router;
}
