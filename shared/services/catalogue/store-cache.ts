import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { readStamp, type HotReadDeps } from '../../cache/versioned';
import { CATALOG_ALL, STORES } from './cache';

/**
 * The store of an embed key or a storefront host, from this process's memory when no store changed since
 * it was read (counters `cat:v:all` and `cat:v:stores`, catalogue/cache.ts): one MGET, no Postgres. A lookup
 * does not know its store before reading, so any store's change invalidates every lookup; store rows,
 * domains and keys change rarely. Misses (unknown keys and hosts) are cached too, as `null`, so a flood of
 * one bad key costs no Postgres; the map is bounded, oldest out first. Each caller gets its own copy of the
 * model, so one request changing its ctx.state.store cannot leak into the next.
 */
export async function cachedStore(
  deps: HotReadDeps & { knex: Knex },
  lookup: string,
  read: (knex: Knex) => PromiseLike<Store | undefined>,
): Promise<Store | undefined> {
  const cache = deps.caches.of<Store | null>('stores');
  // Without Redis nothing is cached and every lookup reads Postgres.
  const stamp = await readStamp(deps, [CATALOG_ALL, STORES]).catch(() => null);
  const hit = stamp === null ? undefined : cache.get(lookup, stamp);
  if (hit !== undefined) return hit === null ? undefined : hit.$clone();
  const store = await read(deps.knex);
  if (stamp !== null) cache.set(lookup, stamp, store ?? null);
  return store?.$clone();
}
