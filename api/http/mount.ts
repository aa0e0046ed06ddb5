import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { DomainError } from '../../shared/errors';
import { AppContext, AppMiddleware, respond } from '../context';
import { validate } from '../middleware/validate';
import type { InterfaceName } from '../interfaces';
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

/** A 405 names the methods the path has (RFC 9110 `Allow`); the error handler writes the envelope. */
async function withAllow(
  ctx: AppContext,
  allowed: AppMiddleware,
  next: () => Promise<unknown>,
): Promise<void> {
  try {
    await allowed(ctx, next as () => Promise<void>);
  } catch (err) {
    if ((err as { status?: number }).status === 405) {
      const layers = (ctx as unknown as { matched?: { methods: string[] }[] }).matched ?? [];
      const methods = [...new Set(layers.flatMap((l) => l.methods))];
      if (methods.length > 0) ctx.set('Allow', methods.join(', '));
    }
    throw err;
  }
}

/** Media types every JSON route reads besides its declared ones: JSON itself and plain forms. */
const ALWAYS_READ = ['application/json', 'application/x-www-form-urlencoded', '+json'];

/**
 * A body in a media type the route does not read is a 415 in the interface's envelope (before, a text/plain
 * JSON body was silently left unparsed and answered as a 422 naming every field).
 */
function mediaTypeCheck(route: Route): AppMiddleware {
  const types = [...ALWAYS_READ, ...(route.request?.bodyTypes ?? [])];
  return async (ctx, next) => {
    if (ctx.request.length || ctx.get('Transfer-Encoding')) {
      if (!ctx.is(types)) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type');
    }
    await next();
  };
}

/** Interfaces whose JSON routes refuse other media types with 415 (docs/errors.md). */
export const MEDIA_CHECKED: ReadonlySet<InterfaceName> = new Set(['embed', 'storefront', 'merchant']);

/**
 * The declared routes, mounted: guards, then validation of params, query and body, then the handler.
 * Guards are built here once per app, so their rate limiters and caches live as long as it does.
 *
 * One router per interface, chosen by the interface the request id middleware named from the path
 * (`ctx.state.interface`; a test checks every route's path names its declared interface): @koa/router
 * tries every route of a router in turn, so a request is matched against its interface's dozen routes
 * rather than all of them. A known path with another method throws 405 (501 for an unknown method) into
 * the error handler, so it answers in the interface's envelope like every other refusal.
 */
export function mountRoutes(routes: readonly Route[], deps: Deps): AppMiddleware {
  const routers = new Map<InterfaceName, Router>();
  for (const route of routes) {
    const request = route.request ?? {};
    const checks =
      request.params || request.query || request.body
        ? [validate({ params: request.params, query: request.query, body: request.body })]
        : [];
    const media = request.body && MEDIA_CHECKED.has(route.interface) ? [mediaTypeCheck(route)] : [];
    const chain = [...media, ...(route.guards?.(deps) ?? []), ...checks, runHandler(route)];
    const at = route.koaPath ?? koaPathOf(route.path);
    let router = routers.get(route.interface);
    if (!router) routers.set(route.interface, (router = new Router()));
    if (route.anyMethod) router.all(at, ...chain);
    else router[route.method](at, ...chain);
  }
  const mounted = new Map<InterfaceName, AppMiddleware>(
    [...routers].map(([name, router]) => {
      const matched = router.routes() as unknown as AppMiddleware;
      const allowed = router.allowedMethods({ throw: true }) as unknown as AppMiddleware;
      return [name, (ctx, next) => matched(ctx, () => withAllow(ctx, allowed, next))];
    }),
  );
  return (ctx, next) => {
    const interfaceRoutes = mounted.get(ctx.state.interface);
    return interfaceRoutes ? interfaceRoutes(ctx, next) : next();
  };
}
