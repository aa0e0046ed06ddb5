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
import { sameOriginOnly } from './same-origin';

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
    // Before the credentials: a cross-site action is refused whoever's browser sends it.
    sameOriginOnly(),
    // A request without credentials is the browser's first, asking which realm (every page and file of
    // the board starts so): only wrong credentials are failed logins.
    failedAuthLimit(LIMITS.dashboardFailuresPerIp, dashboardAuth(deps.config, 'queues'), (ctx) =>
      Boolean(ctx.get('Authorization')),
    ),
    plainAddressScript(),
    selfContainedPage(),
    serverAdapter.registerPlugin() as AppMiddleware,
  ];
}

const GOOGLE_FONTS = /<link[^>]+fonts\.googleapis\.com[^>]*>\s*/g;
const HEAD = /<head>/;
const PLAIN_ADDRESS_PATH = `${DASHBOARD_PATH}/_matjar/plain-address.js`;

/**
 * Opened as http://user:password@host/admin/queues (credentials in the address, as a bookmark or a
 * monitoring link may carry them), the page's addresses resolve against a base that still carries the
 * credentials (Chromium drops them from `location.href` but not from `document.baseURI`), and the
 * browser refuses the fetch() of such an address: the board's labels never load and show as raw keys.
 * This script, first in the page, reloads the same address without the credentials: the browser keeps
 * the credentials it just used for this origin, so nothing is asked again. The board's router takes its
 * base path from `<base href>`, which therefore stays the plain path bull-board writes (an absolute
 * address there made every link `http://host/http://host/admin/queues/...`).
 */
const PLAIN_ADDRESS_SCRIPT =
  'if (/^\\w+:\\/\\/[^/]*@/.test(document.baseURI)) location.replace(location.href);\n';

function plainAddressScript(): AppMiddleware {
  return async (ctx, next) => {
    if (ctx.path !== PLAIN_ADDRESS_PATH) return next();
    ctx.type = 'application/javascript';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = PLAIN_ADDRESS_SCRIPT;
  };
}

/**
 * bull-board's page is changed on the way out: it loads its fonts from Google, and the page uses the
 * system's fonts instead and loads nothing from elsewhere; the script above is put first in its head.
 */
function selfContainedPage(): AppMiddleware {
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || typeof ctx.body !== 'string' || !ctx.response.is('html')) return;
    ctx.body = ctx.body
      .replace(GOOGLE_FONTS, '')
      .replace(HEAD, `<head>\n    <script src="${PLAIN_ADDRESS_PATH}"></script>`);
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
      'DASHBOARD_USER/DASHBOARD_PASSWORD configured it always answers 401. Every request but GET, HEAD and ' +
      'OPTIONS must come from the board’s own origin: a `Sec-Fetch-Site` other than `same-origin`, or an ' +
      '`Origin` other than this one, is a 403 and nothing is done.',
    security: [{ DashboardBasic: [] }],
    guards: dashboard,
    responses: {
      200: htmlResponse('The dashboard (HTML).'),
      401: {
        description: 'Missing or wrong credentials (`WWW-Authenticate: Basic`).',
        content: { 'application/json': { schema: schemaRef('PlatformError') } },
      },
      403: {
        description:
          'A request that changes something, sent from another origin (`Sec-Fetch-Site`, `Origin`).',
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
