import type { Config } from '../shared/config';
import { adminRoutes } from './admin/routes';
import { dashboardRoutes } from './dashboard/routes';
import { devRoutes } from './dev/routes';
import { docsRoutes } from './docs/routes';
import { embedRoutes } from './embed/routes';
import { fivemRoutes } from './fivem/routes';
import type { Route } from './http/route';
import { merchantRoutes } from './merchant/routes';
import { payRoutes } from './pay/routes';
import { claimRoutes } from './claims/routes';
import { invoicePageRoutes } from './invoices/routes';
import { growthPageRoutes } from './growth/routes';
import { interfaceIndexRoutes } from './platform/interface-index';
import { subscriptionPageRoutes } from './pay/subscription-page';
import { platformRoutes } from './platform/routes';
import { sandboxRoutes } from './sandbox/routes';
import { storefrontRoutes } from './storefront/routes';
import { webhookRoutes } from './webhooks/routes';
import { licenseCertificateRoutes } from './license/certificate-routes';
import { licenseRoutes } from './license/routes';
import { mediaRoutes } from './media/routes';
import { downloadRoutes } from './downloads/routes';
import { licenseSeatRoutes } from './license/seat-routes';
import { widgetDemoRoutes, widgetRoutes } from './widget/routes';
import { accountRoutes } from './account/routes';
import { storePageRoutes } from './store-pages/routes';

/**
 * Every route the app serves, each declared once (api/http/route.ts). The app mounts this list and the
 * OpenAPI document is generated from the same list, so nothing can be served undocumented.
 * Order matters only between overlapping paths: the more specific first.
 */
export function allRoutes(
  config: Pick<Config, 'nodeEnv'> & Partial<Pick<Config, 'sandboxEnabled'>>,
): Route[] {
  // The operator contract (docs/operations.md): the /__dev routes do not exist in production.
  const dev = config.nodeEnv === 'production' ? [] : [...devRoutes, ...widgetDemoRoutes];
  const routes = [
    ...platformRoutes,
    ...docsRoutes,
    ...adminRoutes,
    ...dev,
    ...embedRoutes,
    ...storefrontRoutes,
    ...merchantRoutes,
    ...webhookRoutes,
    ...payRoutes,
    ...claimRoutes,
    ...subscriptionPageRoutes,
    ...dashboardRoutes,
    ...invoicePageRoutes,
    // Anyone can mark a sandbox payment paid: off in production unless SANDBOX_ENABLED=1 (announced at start).
    ...((config.sandboxEnabled ?? config.nodeEnv !== 'production') ? sandboxRoutes : []),
    ...licenseRoutes,
    ...licenseCertificateRoutes,
    ...licenseSeatRoutes,
    ...fivemRoutes,
    ...widgetRoutes,
    ...mediaRoutes,
    ...downloadRoutes,
    ...growthPageRoutes,
    // The buyer's account (docs/account.md).
    ...accountRoutes,
    // Store pages and buy links (docs/store-pages.md), `/` on store domains included.
    ...storePageRoutes,
  ];
  return [...routes, ...interfaceIndexRoutes(routes)];
}
