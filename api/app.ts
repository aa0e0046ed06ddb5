import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Deps } from '../shared/deps';
import type { AppContextExtras, AppState } from './context';
import { httpMetrics } from './metrics/http-metrics';
import { accessLog } from './middleware/access-log';
import { embedCors } from './middleware/embed-cors';
import { storefrontCors } from './middleware/storefront-cors';
import { errorHandler } from './middleware/error-handler';
import { requestDeadline } from './middleware/request-deadline';
import { requestId } from './middleware/request-id';
import { securityHeaders } from './middleware/security-headers';
import { storableBody, storableUrl } from './middleware/storable-input';
import { mountRoutes } from './http/mount';
import { allRoutes } from './routes';

export type App = Koa<AppState, AppContextExtras>;

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
  app.use(accessLog(deps.logger));
  app.use(httpMetrics(app, deps));
  app.use(errorHandler(deps.logger));
  app.use(requestDeadline(deps.config.timeouts.requestDeadlineMs));
  // Sets its headers before anything can fail, so error answers carry them; a preflight is answered here,
  // ahead of the body parser and the routers' guards.
  app.use(embedCors());
  app.use(storefrontCors());
  // What Postgres cannot store (NUL, bytes that are not UTF-8) is refused here, once, for every route.
  app.use(storableUrl());
  app.use(
    koaBody({
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
    }),
  );
  app.use(storableBody());
  const routes = allRoutes(deps.config);
  app.context.routes = routes;
  const router = mountRoutes(routes, deps);
  app.use(router.routes());
  // A known path with another method: 405 (501 for an unknown method) thrown into the error handler, so it
  // answers in the interface's envelope like every other refusal.
  app.use(router.allowedMethods({ throw: true }));
  return app;
}
