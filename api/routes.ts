import type Router from '@koa/router';
import type { Deps } from '../shared/deps';
import { adminRouter } from './admin/router';
import { devRouter } from './dev/router';
import { docsRouter } from './docs/router';
import { embedRouter } from './embed/router';
import { metricsRouter } from './metrics/router';
import { payRouter } from './pay/router';
import { platformRouter } from './platform/router';
import { sandboxRouter } from './sandbox/router';
import { storefrontRouter } from './storefront/router';
import { webhooksRouter } from './webhooks/router';
import { widgetRouter } from './widget/router';

/**
 * Every router the app mounts. The OpenAPI coverage test walks this same list, so a route added here
 * without a matching entry in the OpenAPI document fails the suite.
 */
export function mountedRouters(deps: Deps): Router[] {
  // CONTRACT section 6: the /__dev routes do not exist in production.
  const dev = deps.config.nodeEnv === 'production' ? [] : [devRouter(deps)];
  return [
    platformRouter(deps),
    metricsRouter(deps),
    docsRouter(deps),
    adminRouter(deps),
    ...dev,
    embedRouter(deps),
    storefrontRouter(deps),
    webhooksRouter(deps),
    payRouter(deps),
    sandboxRouter(deps),
    widgetRouter(deps),
  ];
}
