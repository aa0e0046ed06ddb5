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

/** A path segment that matches only itself: no parameter, group, wildcard or optional part. */
const LITERAL_SEGMENT = /^[A-Za-z0-9._~-]+$/;

/** How many leading path segments pick a request's router. */
const SECTION_DEPTH = 2;

/**
 * The first two segments of a path, lower-cased (@koa/router matches case-insensitively) and without a
 * trailing slash (it matches `/healthz/` as `/healthz`): `/shawarma/orders/12` -> `/shawarma/orders`.
 */
export function sectionOfRequest(path: string): string {
  const segments = path.split('/', SECTION_DEPTH + 1).slice(1);
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  // `//` is the root with a trailing slash, as the router reads it (the root route `/`).
  if (segments.length === 1 && segments[0] === '') return '';
  return segments
    .map((s) => `/${s}`)
    .join('')
    .toLowerCase();
}

/**
 * The section a route's pattern belongs to, and whether it is exact: `/shawarma/orders/:id` is exactly
 * `/shawarma/orders`; `/pay/:token` could match under any `/pay/...` section, so it is the wildcard section
 * `/pay` (exact: false); a pattern with a parameter in its first segment (none today) matches anywhere: `''`.
 */
export function sectionOfPattern(pattern: string): { section: string; exact: boolean } {
  const segments = pattern.split('/').slice(1, 1 + SECTION_DEPTH);
  if (segments.length === 1 && segments[0] === '') return { section: '', exact: true };
  const literal: string[] = [];
  for (const segment of segments) {
    if (!LITERAL_SEGMENT.test(segment))
      return { section: literal.map((s) => `/${s}`).join(''), exact: false };
    literal.push(segment.toLowerCase());
  }
  return { section: literal.map((s) => `/${s}`).join(''), exact: true };
}

/**
 * The declared routes, mounted: guards, then validation of params, query and body, then the handler.
 * Guards are built here once per app, so their rate limiters and caches live as long as it does.
 *
 * One router per path section (the first two segments: `/healthz`, `/shawarma/orders`, `/api/embed`):
 * @koa/router tries every route of a router in turn, so a request is matched against the few routes
 * that could match its path rather than against all of them, and the cost of routing no longer grows
 * with the number of routes (docs/performance.md). A section's router holds the routes of that section
 * and, in declaration order, every route whose pattern could also match there (`/pay/:token` under
 * `/pay/...`), so what matches, in which order, and the methods a 405 names are what one router over
 * all routes would give. A known path with another method throws 405 (501 for an unknown method) into
 * the error handler, so it answers in the interface's envelope like every other refusal.
 */
export function mountRoutes(routes: readonly Route[], deps: Deps): AppMiddleware {
  const patterns = routes.map((route) => route.koaPath ?? koaPathOf(route.path));
  const chains = routes.map((route) => chainOf(route, deps));
  const routerOf = (indices: readonly number[]): AppMiddleware => {
    const router = new Router();
    for (const i of indices) {
      const route = routes[i];
      if (route.anyMethod) router.all(patterns[i], ...chains[i]);
      else router[route.method](patterns[i], ...chains[i]);
    }
    const matched = router.routes() as unknown as AppMiddleware;
    const allowed = router.allowedMethods({ throw: true }) as unknown as AppMiddleware;
    return (ctx, next) => matched(ctx, () => withAllow(ctx, allowed, next));
  };
  const sections = planSections(patterns);
  const routers = new Map([...sections.all()].map(([key, indices]) => [key, routerOf(indices)]));
  return (ctx, next) => {
    const key = sections.keyFor(ctx.path);
    const router = key === undefined ? undefined : routers.get(key);
    return router ? router(ctx, next) : next();
  };
}

/** Which routes (indices into the patterns, in declaration order) each path section is matched against. */
export interface SectionPlan {
  /** Every section's routes, keyed by `exact:<section>` or `under:<section>`. */
  all(): Map<string, number[]>;
  /** The key of the routes a request path is matched against; undefined when none could match it. */
  keyFor(path: string): string | undefined;
}

export function planSections(patterns: readonly string[]): SectionPlan {
  const placed = patterns.map((pattern) => sectionOfPattern(pattern));
  const groups = new Map<string, number[]>();
  const covering = (section: string, exact: boolean): number[] =>
    placed.flatMap((p, i) => {
      const covers = p.exact
        ? exact && p.section === section
        : section === p.section || section.startsWith(`${p.section}/`);
      return covers ? [i] : [];
    });
  for (const p of placed) {
    const key = `${p.exact ? 'exact' : 'under'}:${p.section}`;
    if (!groups.has(key)) groups.set(key, covering(p.section, p.exact));
  }
  return {
    all: () => groups,
    keyFor(path) {
      const section = sectionOfRequest(path);
      if (groups.has(`exact:${section}`)) return `exact:${section}`;
      // The longest wildcard section the request is under: `/pay/abc` -> `/pay`, then `''`.
      let prefix = section;
      for (;;) {
        if (groups.has(`under:${prefix}`)) return `under:${prefix}`;
        if (prefix === '') return undefined;
        prefix = prefix.slice(0, Math.max(0, prefix.lastIndexOf('/')));
      }
    },
  };
}

/** A route's own chain: media type check, guards, validation, handler. */
function chainOf(route: Route, deps: Deps): AppMiddleware[] {
  const request = route.request ?? {};
  const checks =
    request.params || request.query || request.body
      ? [validate({ params: request.params, query: request.query, body: request.body })]
      : [];
  const media = request.body && MEDIA_CHECKED.has(route.interface) ? [mediaTypeCheck(route)] : [];
  return [...media, ...(route.guards?.(deps) ?? []), ...checks, runHandler(route)];
}
