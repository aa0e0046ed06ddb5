import type { Knex } from 'knex';

/**
 * License verification:
 * - `licenses.activations_count`: the activations a license holds, kept beside the rows so that a new
 *   activation is admitted by one conditional UPDATE (`count < max`), which Postgres serialises on the row;
 * - `license_activations.identifier` now holds an HMAC of the hardware id or IP address (never the value),
 *   unique per license; `hint` keeps its last characters so a merchant can tell activations apart;
 * - the index behind the merchant's list of a product's licenses, newest first;
 * - `license_resets`: the customer's self-service activation resets, counted against a quota per window.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('licenses', (t) => {
    t.integer('activations_count').notNullable().defaultTo(0);
  });
  await knex.raw(
    'alter table licenses add constraint licenses_activations_count_check check (activations_count >= 0)',
  );
  await knex.raw('create index licenses_product_recent on licenses (product_id, id desc)');

  await knex.schema.alterTable('license_activations', (t) => {
    t.string('hint', 16);
  });

  await knex.schema.createTable('license_resets', (t) => {
    t.increments('id');
    t.integer('license_id').notNullable().references('licenses.id').onDelete('CASCADE');
    t.integer('removed').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['license_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('license_resets');
  await knex.schema.alterTable('license_activations', (t) => {
    t.dropColumn('hint');
  });
  await knex.raw('drop index if exists licenses_product_recent');
  await knex.schema.alterTable('licenses', (t) => {
    t.dropColumn('activations_count');
  });
}
