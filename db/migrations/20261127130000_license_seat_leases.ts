import type { Knex } from 'knex';

/**
 * Floating seats that an offline certificate leases (docs/license.md, "Floating seats" and "Offline
 * certificates"). `id` names the seat in a certificate's `seat` claim; `generation` moves each time a
 * certificate is minted for the seat or the seat is released, so only the newest certificate of a held seat
 * passes the online check; `certified_until` is the end of the longest certificate minted for the seat, and a
 * release never frees the seat before it (so one seat never backs two machines' valid certificates).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table license_seats add column id bigserial not null unique');
  await knex.schema.alterTable('license_seats', (t) => {
    t.integer('generation').notNullable().defaultTo(0);
    t.timestamp('certified_until', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('license_seats', (t) => {
    t.dropColumn('id');
    t.dropColumn('generation');
    t.dropColumn('certified_until');
  });
}
