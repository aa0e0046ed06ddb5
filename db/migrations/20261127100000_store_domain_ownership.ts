import type { Knex } from 'knex';

/**
 * Store domains are proven before they count (docs/merchant.md, "Store domains"): a domain a merchant adds
 * is pending until the DNS TXT record `txt_name` holds `txt_value`; only verified domains pick the store
 * for Storefront requests.
 *
 * - `verified_at`: when the TXT record was found (or the fixture loaded the domain); null while pending.
 * - `txt_value`: the random value the store's TXT record must hold, made when the domain is added, so a
 *   record left behind by an earlier holder of the domain proves nothing for the next one.
 *
 * Domains that exist when this runs stay verified: before this change they already picked their store
 * for every Storefront request, so marking them pending would break live storefronts. Their `txt_value`
 * is still made, in case a merchant removes and adds one again (that makes a new one anyway).
 * The unique index on `domain` stays: one store holds a domain, pending or verified, and two stores
 * claiming one at the same moment are decided by it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('store_domains', (t) => {
    t.timestamp('verified_at', { useTz: true });
    t.string('txt_value', 100);
    t.timestamp('checked_at', { useTz: true });
  });
  await knex.raw(
    `update store_domains
        set verified_at = created_at,
            txt_value = 'matjar-verify=' || replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`,
  );
  await knex.raw('alter table store_domains alter column txt_value set not null');
  // The verify-domains task reads the pending ones only.
  await knex.raw('create index store_domains_pending on store_domains (id) where verified_at is null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index store_domains_pending');
  await knex.schema.alterTable('store_domains', (t) => {
    t.dropColumn('checked_at');
    t.dropColumn('txt_value');
    t.dropColumn('verified_at');
  });
}
