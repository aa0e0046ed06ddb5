import path from 'node:path';
import type { Knex } from 'knex';

/**
 * How long one database call may wait before it fails (docs/outages.md): opening a connection, taking one
 * from the pool, and one query (client side, so a frozen server cannot hold it; and server side as
 * statement_timeout, so a running server cancels it and frees its locks).
 */
export interface DatabaseTimeouts {
  connectMs: number;
  acquireMs: number;
  queryMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  acquireMs: 10_000,
  queryMs: 60_000,
};

/**
 * Knex settings shared by the app, the migration command and the tests. Migrations are looked up next to
 * this file so the same code works from `db/` under tsx and from `dist/db/` once compiled.
 */
export function knexConfig(
  databaseUrl: string,
  pool: { min: number; max: number } = { min: 0, max: 10 },
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Knex.Config {
  const compiled = path.extname(__filename) === '.js';
  return {
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      connectionTimeoutMillis: timeouts.connectMs,
      query_timeout: timeouts.queryMs,
      statement_timeout: timeouts.queryMs,
    },
    pool: { ...pool, acquireTimeoutMillis: timeouts.acquireMs, idleTimeoutMillis: 10_000 },
    acquireConnectionTimeout: timeouts.acquireMs,
    migrations: {
      directory: path.join(__dirname, 'migrations'),
      tableName: 'knex_migrations',
      loadExtensions: compiled ? ['.js'] : ['.ts'],
    },
  };
}

export default knexConfig(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/commerce');
