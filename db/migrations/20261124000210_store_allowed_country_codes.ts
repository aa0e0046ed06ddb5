import type { Knex } from 'knex';

/**
 * The calling codes a store accepts for phone sign-in (digits, no plus). Null: every code the platform
 * supports. A store selling in one region closes the rest of the world's premium-rate ranges to SMS
 * pumping through its embed key.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.specificType('allowed_country_codes', 'text[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('allowed_country_codes');
  });
}
