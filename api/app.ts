import type { IncomingMessage } from 'node:http';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Deps } from '../shared/deps';
import type { AppContextExtras, AppState } from './context';
import { httpMetrics } from './metrics/http-metrics';
import { browserCors } from './middleware/cors';
import { errorHandler } from './middleware/error-handler';
import { requestDeadline } from './middleware/request-deadline';
import { requestId } from './middleware/request-id';
import { securityHeaders } from './middleware/security-headers';
import { storableBody, storableUrl } from './middleware/storable-input';
import { mountRoutes } from './http/mount';
import { licenseAnswerBeforeRoute } from './license/answer';
import { allRoutes } from './routes';

export type App = Koa<AppState, AppContextExtras>;

/** The methods koa-body parses (its default). */
const PARSED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Whether a request carries a body, by the rule type-is (and so koa-body) applies. */
const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

/** Builds the HTTP app for all five interfaces. It does not listen: server.ts and the tests do. */
export function createApp(deps: Deps): App {
  const app: App = new Koa<AppState, AppContextExtras>({ proxy: deps.config.trustProxy });
  // Behind N trusted proxies the client is the N-th X-Forwarded-For entry from the right: entries further
  // left were written by the client itself and prove nothing.
  if (deps.config.trustProxy) app.maxIpsCount = deps.config.trustProxyHops;
  app.context.deps = deps;
  // Koa's own error printing would write stacks to stderr; the error handler logs instead.
  app.silent = true;

  app.use(requestId());
  app.use(securityHeaders());
  // The latency histogram and the access log line, one timer for both.
  app.use(httpMetrics(app, deps));
  app.use(errorHandler(deps.logger));
  app.use(requestDeadline(deps.config.timeouts.requestDeadlineMs));
  // Sets its headers before anything can fail, so error answers carry them; a preflight is answered here,
  // ahead of the body parser and the routers' guards.
  app.use(browserCors());
  // What Postgres cannot store (NUL, bytes that are not UTF-8) is refused here, once, for every route.
  app.use(storableUrl());
  const parseBody = koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: '1mb',
    formLimit: '256kb',
    // Webhook routes verify provider signatures over the exact bytes received.
    includeUnparsed: true,
    onError: (err) => {
      throw Object.assign(err, { status: (err as { status?: number }).status ?? 400, expose: true });
    },
  });
  const checkBody = storableBody();
  // /verify and /verify/reset sign every answer, also one refused before the route (a body that is not JSON).
  app.use(licenseAnswerBeforeRoute());
  // A request without a body (every GET, a bodiless POST) skips the parser and the check: koa-body would
  // leave ctx.request.body undefined for it anyway, after four content-type tests.
  app.use((ctx, next) =>
    PARSED_METHODS.has(ctx.method) && hasBody(ctx.req) ? parseBody(ctx, () => checkBody(ctx, next)) : next(),
  );
  const routes = allRoutes(deps.config);
  app.context.routes = routes;
  app.use(mountRoutes(routes, deps));
  return app;
}
