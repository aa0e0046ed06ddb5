import knexFactory, { Knex } from 'knex';
import { knexConfig } from './knexfile';

/** Runs every pending migration. Idempotent: a second run finds nothing to do. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest()) as [number, string[]];
  return applied;
}

export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  // A migration may rewrite a large table: no query time limit (0), only a bound on reaching the server.
  const knex = knexFactory(
    knexConfig(databaseUrl, { min: 0, max: 1 }, { connectMs: 10_000, acquireMs: 60_000, queryMs: 0 }),
  );
  try {
    return await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
}
