import type { Store } from '../../db/models';
import type { HotReadDeps } from '../../shared/cache/versioned';
import { cachedStore } from '../../shared/services/catalogue/store-cache';
import { storeByVerifiedDomain } from '../../shared/services/stores/lookup';
import { InvalidError } from '../../shared/errors';
import type { AppContext, AppMiddleware } from '../context';

export const STORE_UNRESOLVED_MESSAGE = 'Store could not be resolved from the request';

/** Host names are at most 253 characters; anything longer cannot be a store domain. */
const MAX_HOST_LENGTH = 253;

async function storeByDomain(
  deps: HotReadDeps & AppContext['deps'],
  host: string,
): Promise<Store | undefined> {
  if (!host || host.length > MAX_HOST_LENGTH) return undefined;
  const domain = host.toLowerCase();
  // A pending domain is only a claim: it picks no store until its TXT record proves it
  // (docs/merchant.md, "Store domains").
  return cachedStore(deps, `host:${domain}`, (knex) => storeByVerifiedDomain(knex, domain));
}

function originHost(ctx: AppContext): string {
  const origin = ctx.get('Origin');
  if (!origin) return '';
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

/**
 * Finds the Storefront's store (docs/operations.md): the request's Host, port ignored, against the
 * store's verified domains; else the host part of Origin, for a storefront served from its own domain that calls
 * the API on a shared one. ctx.hostname already drops the port and, behind a trusted proxy only,
 * reads X-Forwarded-Host.
 */
export function storefrontStore(): AppMiddleware {
  return async (ctx, next) => {
    const store =
      (await storeByDomain(ctx.deps, ctx.hostname)) ?? (await storeByDomain(ctx.deps, originHost(ctx)));
    if (!store) throw new InvalidError(STORE_UNRESOLVED_MESSAGE).withCode('store_not_resolved');
    ctx.state.store = store;
    await next();
  };
}
