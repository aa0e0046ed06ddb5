import type {} from 'koa-body';
import type Koa from 'koa';
import type { Deps } from '../shared/deps';
import type { Customer, CustomerAccessToken, MerchantToken, Store } from '../db/models';
import type { RequestBudget } from '../shared/request-deadline';
import type { InterfaceName } from './interfaces';
import type { Route } from './http/route';
import { envelopes } from './envelopes';

/** Per-request state that middleware fills in before a handler runs. */
export interface AppState {
  requestId: string;
  interface: InterfaceName;
  /** Set by the embed-key guard, the storefront store resolver and the merchant guard. */
  store?: Store;
  customer?: Customer;
  customerToken?: CustomerAccessToken;
  merchantToken?: MerchantToken;
  /** Validated input, set by the validate middleware. */
  body?: unknown;
  query?: unknown;
  params?: unknown;
  /** Set by the request deadline middleware; handed to services that start work. */
  budget?: RequestBudget;
  [key: string]: unknown;
}

export interface AppContextExtras {
  deps: Deps;
  /** The routes this app mounts, for the OpenAPI document it serves. */
  routes: Route[];
}

export type AppContext = Koa.ParameterizedContext<AppState, AppContextExtras & Koa.DefaultContext>;
export type AppMiddleware = Koa.Middleware<AppState, AppContextExtras & Koa.DefaultContext>;

/** Writes a success body in the envelope of the interface the request belongs to. */
export function respond(
  ctx: AppContext,
  data: unknown,
  opts: { status?: number; message?: string | null } = {},
): void {
  ctx.status = opts.status ?? 200;
  ctx.body = envelopes[ctx.state.interface].ok(data, opts.message ?? null);
}
