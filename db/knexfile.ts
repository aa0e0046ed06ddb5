import path from 'node:path';
import type { Knex } from 'knex';

/**
 * Knex settings shared by the app, the migration command and the tests. Migrations are looked up next to
 * this file so the same code works from `db/` under tsx and from `dist/db/` once compiled.
 */
export function knexConfig(
  databaseUrl: string,
  pool: { min: number; max: number } = { min: 0, max: 10 },
): Knex.Config {
  const compiled = path.extname(__filename) === '.js';
  return {
    client: 'pg',
    connection: databaseUrl,
    pool: { ...pool, acquireTimeoutMillis: 10_000, idleTimeoutMillis: 10_000 },
    acquireConnectionTimeout: 10_000,
    migrations: {
      directory: path.join(__dirname, 'migrations'),
      tableName: 'knex_migrations',
      loadExtensions: compiled ? ['.js'] : ['.ts'],
    },
  };
}

export default knexConfig(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/commerce');
