import crypto from 'node:crypto';
import knexFactory from 'knex';
import { Redis } from 'ioredis';
import { migrateDatabase } from '../../db/migrate';
import { Cipher } from '../../shared/crypto';
import { deleteKeysWithPrefix } from '../../shared/redis';
import { checkSealedData } from '../../shared/services/secrets/sealed-data';

/**
 * Each test run gets its own databases and Redis key prefix, so it never touches anyone else's data and
 * two runs can share one server. TEST_DATABASE_URL / DATABASE_URL name the server to create them on.
 *
 * One run is several processes: `npm test` runs the suite in lanes (scripts/test.ts), and a lane in
 * Mocha's parallel mode runs its files in worker processes. TEST_RUN_ID (set once by the first process
 * and inherited by the processes it starts) names the run; each process gets a database of its own,
 * cloned from the run's migrated template (made by the global fixture in setup.ts), and a Redis prefix of its
 * own under the run's, so the end of the run removes all of them by the run's name.
 */
process.env.TEST_RUN_ID ??= `${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
const runId = process.env.TEST_RUN_ID;
/** This process's part of the run: Mocha's worker number in parallel mode, else the process id. */
const processPart =
  process.env.MOCHA_WORKER_ID !== undefined ? `w${process.env.MOCHA_WORKER_ID}` : `p${process.pid}`;
export const TEST_RUN_DB_PREFIX = `commerce_test_${runId}`;
export const TEST_TEMPLATE_DB_NAME = `${TEST_RUN_DB_PREFIX}_template`;
export const TEST_DB_NAME = `${TEST_RUN_DB_PREFIX}_${processPart}`;
export const TEST_RUN_QUEUE_PREFIX = `test_${runId}`;
export const TEST_QUEUE_PREFIX = `${TEST_RUN_QUEUE_PREFIX}_${processPart}`;

function serverUrl(): URL {
  const base =
    process.env.TEST_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  return new URL(base);
}

function urlForDatabase(name: string): string {
  const url = serverUrl();
  url.pathname = `/${name}`;
  return url.toString();
}

export const testDatabaseUrl = urlForDatabase(TEST_DB_NAME);
export const testRedisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Environment every test config starts from. */
export const TEST_ENV: NodeJS.ProcessEnv = {
  NODE_ENV: 'test',
  DATABASE_URL: testDatabaseUrl,
  REDIS_URL: testRedisUrl,
  QUEUE_PREFIX: TEST_QUEUE_PREFIX,
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  APP_SECRET: 'test-secret-test-secret-test-secret-0001',
  MESSAGING_DRIVER: 'outbox',
  PUBLIC_BASE_URL: 'http://localhost:3999',
  // The suite runs two lanes and the processes they start on two cores: a query or a pooled connection can
  // wait longer than production's 1.5 s there without anything being down. The outage tests set their own.
  DEPENDENCY_TIMEOUT_MS: '5000',
};

async function withAdmin<T>(fn: (k: ReturnType<typeof knexFactory>) => Promise<T>): Promise<T> {
  const admin = knexFactory({
    client: 'pg',
    connection: urlForDatabase('postgres'),
    pool: { min: 0, max: 1 },
  });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

/** The run's template: created and migrated once, before any test file runs (setup.ts). */
export async function createTemplateDatabase(): Promise<void> {
  await withAdmin((admin) => admin.raw(`create database "${TEST_TEMPLATE_DB_NAME}"`));
  const url = urlForDatabase(TEST_TEMPLATE_DB_NAME);
  await migrateDatabase(url);
  // The sealed-data check value a first start leaves (docs/security.md, "Rotating APP_SECRET"), under the
  // run's APP_SECRET: a process started later on a clone checks it, not whichever sealed row (some
  // suites store deliberately unreadable ones) it would otherwise probe.
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await checkSealedData(knex, new Cipher(String(TEST_ENV.APP_SECRET)));
  } finally {
    await knex.destroy();
  }
}

let created: Promise<void> | null = null;

/**
 * This process's database, cloned from the run's template on first use (a parallel worker runs many
 * files, and each file's root hook asks again). A copy of a migrated template takes a fraction of what
 * running the migrations does.
 */
export function createTestDatabase(): Promise<void> {
  created ??= withAdmin((admin) =>
    admin.raw(`create database "${TEST_DB_NAME}" template "${TEST_TEMPLATE_DB_NAME}"`),
  ).then(() => undefined);
  created.catch(() => {
    created = null;
  });
  return created;
}

/** The tables the template left rows in (the sealed-data check value...): kept as they are. */
let seededTables: string[] | null = null;

/**
 * A parallel worker runs many files on its one database: before each file after the first, every table the
 * template left empty is emptied again and its ids restarted, and the process's Redis keys (queues, stamps)
 * are deleted, so each file starts from what a fresh clone gives, whatever the files before it wrote.
 * The first call only notes which tables the template filled.
 */
export async function resetTestDatabase(): Promise<void> {
  const knex = knexFactory({ client: 'pg', connection: testDatabaseUrl, pool: { min: 0, max: 1 } });
  try {
    const { rows } = await knex.raw<{ rows: { tablename: string }[] }>(
      "select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_migrations%'",
    );
    const tables = rows.map((r) => r.tablename);
    if (seededTables === null) {
      const filled: string[] = [];
      for (const table of tables) {
        const { rows: any } = await knex.raw<{ rows: unknown[] }>(`select 1 from "${table}" limit 1`);
        if (any.length > 0) filled.push(table);
      }
      seededTables = filled;
      return;
    }
    const emptied = tables.filter((t) => !seededTables!.includes(t));
    await knex.transaction(async (trx) => {
      await trx.raw("set local lock_timeout = '20s'");
      await trx.raw(`truncate table ${emptied.map((t) => `"${t}"`).join(', ')} restart identity`);
    });
    // This process's keys only: `<prefix>:...` (shared deps) and `<prefix>_<random>:...` (isolated deps).
    await deleteRedisKeys(`${TEST_QUEUE_PREFIX}:`);
    await deleteRedisKeys(`${TEST_QUEUE_PREFIX}_`);
  } finally {
    await knex.destroy();
  }
}

/** Drops every database of this run (the template and each process's clone). */
export async function dropRunDatabases(): Promise<void> {
  await withAdmin(async (admin) => {
    const { rows } = await admin.raw<{ rows: { datname: string }[] }>(
      'select datname from pg_database where datname like ?',
      [`${TEST_RUN_DB_PREFIX.replace(/_/g, '\\_')}\\_%`],
    );
    for (const { datname } of rows) await admin.raw(`drop database if exists "${datname}" with (force)`);
  });
}

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
