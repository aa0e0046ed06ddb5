import type { Knex } from 'knex';

/**
 * Activation churn:
 * - `license_policies.reset_limit` / `reset_window_days`: how many self-service resets a license may make per
 *   window (the merchant's setting; 2 per 30 days without one);
 * - `license_events`: each license's history of activations and resets, for the merchant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('license_policies', (t) => {
    t.integer('reset_limit').notNullable().defaultTo(2);
    t.integer('reset_window_days').notNullable().defaultTo(30);
  });
  await knex.raw(
    'alter table license_policies add constraint license_policies_reset_check ' +
      'check (reset_limit between 0 and 100 and reset_window_days between 1 and 365)',
  );
  await knex.schema.createTable('license_events', (t) => {
    t.bigIncrements('id');
    t.integer('license_id').notNullable().references('licenses.id').onDelete('CASCADE');
    /** activated | reset */
    t.string('kind', 20).notNullable();
    /** customer (the key holder, through /verify) | merchant */
    t.string('actor', 20).notNullable();
    /** Last characters of the hwid or IP concerned; null for a reset of every activation. */
    t.string('hint', 16);
    /** Activations a reset removed. */
    t.integer('removed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['license_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('license_events');
  await knex.raw('alter table license_policies drop constraint if exists license_policies_reset_check');
  await knex.schema.alterTable('license_policies', (t) => {
    t.dropColumn('reset_limit');
    t.dropColumn('reset_window_days');
  });
}
