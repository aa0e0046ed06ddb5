import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { AppContext, AppMiddleware, respond } from '../context';
import { validate } from '../middleware/validate';
import { Reply, Route, RouteInput } from './route';

/** `/api/embed/product/{productId}` -> `/api/embed/product/:productId`, the form @koa/router reads. */
export const koaPathOf = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

function runHandler(route: Route): AppMiddleware {
  return async (ctx: AppContext) => {
    const input: RouteInput<unknown, unknown, unknown> = {
      params: ctx.state.params ?? {},
      query: ctx.state.query ?? {},
      body: ctx.state.body,
    };
    const answer = await route.handler(ctx, input);
    if (answer === undefined) return;
    if (answer instanceof Reply) {
      for (const [name, value] of Object.entries(answer.options.headers ?? {})) ctx.set(name, value);
      respond(ctx, answer.data, answer.options);
      return;
    }
    respond(ctx, answer);
  };
}

/**
 * One router for every declared route: guards, then validation of params, query and body, then the
 * handler. Guards are built here once per app, so their rate limiters and caches live as long as it does.
 */
export function mountRoutes(routes: readonly Route[], deps: Deps): Router {
  const router = new Router();
  for (const route of routes) {
    const request = route.request ?? {};
    const checks =
      request.params || request.query || request.body
        ? [validate({ params: request.params, query: request.query, body: request.body })]
        : [];
    const chain = [...(route.guards?.(deps) ?? []), ...checks, runHandler(route)];
    const at = route.koaPath ?? koaPathOf(route.path);
    if (route.anyMethod) router.all(at, ...chain);
    else router[route.method](at, ...chain);
  }
  return router;
}
