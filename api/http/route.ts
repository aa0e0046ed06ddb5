import type Joi from 'joi';
import type { Deps } from '../../shared/deps';
import type { AppContext, AppMiddleware } from '../context';
import type { InterfaceName } from '../interfaces';
import type { ResponseObject, Reference, SecurityRequirement } from '../openapi/types';

/**
 * One declaration per operation. The router is mounted from it (api/http/mount.ts), its joi schemas
 * validate the request and type the handler's input, and the OpenAPI document is generated from it
 * (api/http/openapi.ts). Nothing about a route is written anywhere else. See api/http/README.md.
 */

export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The validated, converted request parts a handler receives. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/**
 * A handler's answer when it is not a plain 200 with `data`: another status, a message (Storefront and
 * Merchant envelopes carry one) or headers.
 */
export class Reply<T = unknown> {
  constructor(
    readonly data: T,
    readonly options: { status?: number; message?: string | null; headers?: Record<string, string> } = {},
  ) {}
}

export const reply = <T>(data: T, options: ConstructorParameters<typeof Reply>[1] = {}): Reply<T> =>
  new Reply(data, options);

/**
 * The document of one answer: a response component's name (`'EmbedError'`), or a response object (built
 * with the envelope helpers of api/openapi/components.ts: `embedOk`, `storefrontOk`, `jsonResponse`, ...).
 */
export type ResponseDoc = ResponseObject | Reference | string;

declare const answerData: unique symbol;

/**
 * A response whose `data` has a type: the schema it documents, read by `Infer` (shared/json-schema.ts).
 * Declared as a route's 200 or 201, it types what the handler returns, as the joi schemas type its input:
 * a handler that returns anything else does not compile. The member exists only for the typecheck.
 */
export type TypedResponse<T> = ResponseObject & { readonly [answerData]?: T };

/** What a handler returns: the answer's data, a Reply of it, or nothing when it wrote ctx.body itself. */
export type Answer<R> = R | Reply<R> | undefined | void;

export interface RouteRequest<P, Q, B> {
  params?: Joi.ObjectSchema<P>;
  query?: Joi.ObjectSchema<Q>;
  body?: Joi.Schema<B>;
  /** Media types the body may come as; default JSON (forms are parsed too, but not documented). */
  bodyTypes?: ReadonlyArray<
    'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded' | 'text/csv'
  >;
  /** An example body for the docs page. */
  example?: unknown;
}

/**
 * Request headers a route reads besides its credentials, by their parameter component's name
 * (api/openapi/components.ts). Their guards validate them; this only documents them.
 * `Accept-Language` and `X-Request-Id` are read on every route and documented everywhere.
 */
export type HeaderParameter = 'IdempotencyKey' | 'CartId';

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, R = unknown> {
  method: RouteMethod;
  /** The full path in OpenAPI form: `/api/embed/product/{productId}`. */
  path: string;
  /**
   * The router's path when it differs from the documented one: a sub-application mounted below `path`
   * (the queue dashboard), in @koa/router's syntax. `anyMethod` then mounts it for every method.
   */
  koaPath?: string;
  anyMethod?: boolean;
  /** Picks the envelope, the tag and the standard error answers. */
  interface: InterfaceName;
  operationId: string;
  summary: string;
  description?: string;
  /** Credentials the route takes, for the docs; `[]` means none. Omitted: the interface's default. */
  security?: SecurityRequirement[];
  /**
   * Middleware run before the request is validated: rate limits, keys, tokens, store resolution, and
   * body readers such as the multipart parser. Built once per app with the process's deps.
   */
  guards?: (deps: Deps) => AppMiddleware[];
  request?: RouteRequest<P, Q, B>;
  headers?: readonly HeaderParameter[];
  /**
   * Answers by status. The interface's standard errors (422 where input is validated, 429 where it is
   * rate limited, ...) are added by the generator and need not be listed.
   */
  responses: Record<number, ResponseDoc> & {
    200?: TypedResponse<R> | Reference | string;
    201?: TypedResponse<R> | Reference | string;
  };
  /** Leave out of the OpenAPI document's standard answers (for example a route with no 429). */
  omitStandard?: readonly number[];
  /**
   * Returns the answer's data (written in the interface's envelope, status 200), a Reply, or undefined
   * when the handler wrote ctx.body itself (HTML pages, redirects, files).
   */
  handler: (ctx: AppContext, input: RouteInput<P, Q, B>) => Promise<Answer<NoInfer<R>>> | Answer<NoInfer<R>>;
}

/**
 * A route as kept in lists: the input types are checked inside defineRoute(), where the schemas and the
 * handler meet, and erased here so routes of different shapes share one array.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Route = RouteDefinition<any, any, any, any>;

/**
 * Declares an operation. P, Q and B are inferred from the joi schemas (`Joi.object<T, true>({...})`
 * ties a schema's keys to T at compile time), so the handler's input is typed by what was validated.
 */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(
  definition: RouteDefinition<P, Q, B, R>,
): Route {
  return definition;
}
