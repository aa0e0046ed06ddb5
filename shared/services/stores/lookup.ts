import type { Knex } from 'knex';
import { Store } from '../../../db/models';

/**
 * The store lookups the request guards need: by id (the dashboard's signed-in membership), by a verified
 * domain (the Storefront's Host or Origin) and by its public embed key (docs/operations.md).
 */

export async function storeById(knex: Knex, id: number): Promise<Store | undefined> {
  return Store.query(knex).findById(id);
}

/**
 * The store a verified domain names. A pending domain is only a claim: it picks no store until its TXT
 * record proves it (docs/merchant.md, "Store domains").
 */
export async function storeByVerifiedDomain(knex: Knex, domain: string): Promise<Store | undefined> {
  return Store.query(knex)
    .select('stores.*')
    .join('store_domains', 'store_domains.store_id', 'stores.id')
    .where('store_domains.domain', domain)
    .whereNotNull('store_domains.verified_at')
    .first();
}

export async function storeByEmbedKey(knex: Knex, key: string): Promise<Store | undefined> {
  return Store.query(knex).findOne({ embed_key: key });
}
