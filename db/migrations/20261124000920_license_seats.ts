import type { Knex } from 'knex';

/**
 * Floating seats. A product whose policy is `floating` lends its licenses' activations out as seats: a
 * machine holds one while its heartbeats arrive within `heartbeat_seconds`; a seat whose `expires_at` has
 * passed is free (a dead machine's seat frees itself), whatever process or worker looks next.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('license_policies', (t) => {
    t.boolean('floating').notNullable().defaultTo(false);
    t.integer('heartbeat_seconds').notNullable().defaultTo(600);
  });
  await knex.raw(
    'alter table license_policies add constraint license_policies_heartbeat_check ' +
      'check (heartbeat_seconds between 2 and 86400)',
  );
  await knex.schema.createTable('license_seats', (t) => {
    t.integer('license_id').notNullable().references('licenses.id').onDelete('CASCADE');
    /** HMAC of the hwid, as license_activations.identifier. */
    t.string('identifier', 64).notNullable();
    t.string('hint', 16);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['license_id', 'identifier']);
    t.index(['license_id', 'expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('license_seats');
  await knex.raw('alter table license_policies drop constraint if exists license_policies_heartbeat_check');
  await knex.schema.alterTable('license_policies', (t) => {
    t.dropColumn('floating');
    t.dropColumn('heartbeat_seconds');
  });
}
