import type {} from 'koa-body';
import type Koa from 'koa';
import type { Deps } from '../shared/deps';
import type { Customer, CustomerAccessToken, MerchantToken, Store } from '../db/models';
import type { RequestBudget } from '../shared/request-deadline';
import type { InterfaceName } from './interfaces';
import type { Route } from './http/route';
import { buyerSuccessMessage } from '../shared/i18n/buyer-messages';
import { envelopes } from './envelopes';
import { fromAcceptLanguage } from './pay/i18n';

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
  /** A read Postgres answers without Redis: its rate limits fall back to the process (cachedRead()). */
  cachedRead?: boolean;
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
  let message = opts.message ?? null;
  // The buyer interfaces answer in the buyer's language (docs/errors.md, "Languages"): the envelope's
  // message (Storefront) and a `message` inside the data (Embed: resend, free order).
  if (ctx.state.interface === 'embed' || ctx.state.interface === 'storefront') {
    const locale = fromAcceptLanguage(ctx.get('Accept-Language')) ?? 'en';
    if (locale === 'ar') {
      if (message !== null) message = buyerSuccessMessage(locale, message);
      const inner = (data as { message?: unknown } | null)?.message;
      if (typeof inner === 'string' && data && typeof data === 'object' && !Array.isArray(data)) {
        data = { ...data, message: buyerSuccessMessage(locale, inner) };
      }
    }
  }
  ctx.body = envelopes[ctx.state.interface].ok(data, message);
}
