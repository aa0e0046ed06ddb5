import type { Store } from '../../../db/models';
import { storeByVerifiedDomain } from '../stores/lookup';
import { cachedStore } from '../catalogue/store-cache';
import { storeBySlug, type StorePagesDeps } from './catalogue';

/**
 * The store a request's host names (docs/store-pages.md): one of its verified domains (a pending one picks
 * nothing, docs/merchant.md "Store domains"), or `{slug}.<STORE_DOMAIN_SUFFIX>` when the suffix is set.
 * Both read through the store lookups' hot-read cache.
 */
export async function storeForHost(
  deps: StorePagesDeps,
  host: string,
  suffix: string | undefined,
): Promise<Store | undefined> {
  if (!host || host.length > 253) return undefined;
  const domain = host.toLowerCase();
  const byDomain = await cachedStore(deps, `host:${domain}`, (knex) => storeByVerifiedDomain(knex, domain));
  if (byDomain) return byDomain;
  if (!suffix || !domain.endsWith(`.${suffix}`)) return undefined;
  const label = domain.slice(0, -(suffix.length + 1));
  return label.includes('.') ? undefined : storeBySlug(deps, label);
}
