import type Router from '@koa/router';
import type { Deps } from '../shared/deps';
import { platformRouter } from './platform/router';

/**
 * Every router the app mounts. The OpenAPI coverage test walks this same list, so a route added here
 * without a matching entry in the OpenAPI document fails the suite.
 */
export function mountedRouters(deps: Deps): Router[] {
  return [platformRouter(deps)];
}
