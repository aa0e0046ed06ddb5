import type { Knex } from 'knex';

/**
 * A product's license policy, set by the merchant (absent row: every default):
 * - `grace_days`: a license past its expiry still verifies, as `grace`, for this many days (0: none);
 * - `checkin_days`: an offline certificate lasts at most this many days, so the software checks in at least
 *   that often (0: the certificate's own limit of 30 days).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('license_policies', (t) => {
    t.integer('product_id').primary().references('products.id').onDelete('CASCADE');
    t.integer('grace_days').notNullable().defaultTo(0);
    t.integer('checkin_days').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'alter table license_policies add constraint license_policies_days_check ' +
      'check (grace_days between 0 and 365 and checkin_days between 0 and 30)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('license_policies');
}
