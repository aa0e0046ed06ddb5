import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import type { AppMiddleware } from '../context';
import { defineRoute } from '../http/route';
import { htmlResponse, schemaRef } from '../openapi/components';
import { LIMITS } from '../../shared/rate-limits';
import { failedAuthLimit } from '../middleware/rate-limit';
import { dashboardAuth } from './basic-auth';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * The queue dashboard (bull-board) for every queue of the platform, where operators inspect and retry
 * failed jobs. bull-board brings its own Koa sub-app mounted under DASHBOARD_PATH; basic auth stands in
 * front of all of it (UI, static files and its JSON API).
 */
function dashboard(deps: Deps): AppMiddleware[] {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(deps.queues).map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Commerce queues' } },
  });
  return [
    failedAuthLimit(LIMITS.dashboardFailuresPerIp, dashboardAuth(deps.config, 'queues')),
    selfContainedPage(),
    serverAdapter.registerPlugin() as AppMiddleware,
  ];
}

const GOOGLE_FONTS = /<link[^>]+fonts\.googleapis\.com[^>]*>\s*/g;
const BASE_HREF = /<base href="([^"]*)"\s*\/?>/;

/**
 * Two fixes to bull-board's page, made on its HTML on the way out:
 * - it loads its fonts from Google; the page uses the system's fonts instead and loads nothing from
 *   elsewhere;
 * - opened as http://user:password@host/admin/queues (credentials in the address), the browser refuses
 *   the page's own fetch() calls to addresses relative to it (they would carry the credentials), so the
 *   labels (its translations) and the queues never load: the page showed raw label keys or stayed on
 *   "Loading". An absolute base address without credentials (this request's origin) makes those calls
 *   plain same-origin requests, which the browser sends with the credentials it was given.
 */
function selfContainedPage(): AppMiddleware {
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || typeof ctx.body !== 'string' || !ctx.response.is('html')) return;
    ctx.body = ctx.body
      .replace(GOOGLE_FONTS, '')
      .replace(BASE_HREF, (_match, href: string) => `<base href="${ctx.protocol}://${ctx.host}${href}" />`);
  };
}

export const adminRoutes = [
  defineRoute({
    method: 'get',
    path: DASHBOARD_PATH,
    koaPath: `${DASHBOARD_PATH}{/*rest}`,
    anyMethod: true,
    interface: 'platform',
    operationId: 'getQueueDashboard',
    summary: 'Queue dashboard',
    description:
      'bull-board UI over every queue: inspect jobs and retry failed ones. Everything below this path ' +
      '(the UI’s static files and its own JSON API) sits behind the same basic auth; with no ' +
      'DASHBOARD_USER/DASHBOARD_PASSWORD configured it always answers 401.',
    security: [{ DashboardBasic: [] }],
    guards: dashboard,
    responses: {
      200: htmlResponse('The dashboard (HTML).'),
      401: {
        description: 'Missing or wrong credentials (`WWW-Authenticate: Basic`).',
        content: { 'application/json': { schema: schemaRef('PlatformError') } },
      },
      404: 'PlatformError',
      429: {
        description:
          'More than 10 failed logins from this IP within a minute: every attempt is refused for the rest ' +
          'of it, before the credentials are compared (`Retry-After`).',
        headers: {
          'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } },
        },
        content: { 'application/json': { schema: schemaRef('PlatformError') } },
      },
    },
    // bull-board answers everything it serves; what reaches here is no page of it.
    handler: () => {
      throw new NotFoundError('Not found');
    },
  }),
];
