import type { Knex } from 'knex';

/** The readiness probe's database check (docs/operations.md): one round trip, no table read. */
export async function pingDatabase(knex: Knex): Promise<void> {
  await knex.raw('select 1');
}
