import knexFactory, { Knex } from 'knex';
import { knexConfig } from './knexfile';

/** Runs every pending migration. Idempotent: a second run finds nothing to do. */
export async function migrateLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest()) as [number, string[]];
  return applied;
}

export async function migrateDatabase(databaseUrl: string): Promise<string[]> {
  const knex = knexFactory(knexConfig(databaseUrl, { min: 0, max: 1 }));
  try {
    return await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
}
