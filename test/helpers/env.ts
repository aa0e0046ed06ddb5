import crypto from 'node:crypto';
import knexFactory from 'knex';
import { Redis } from 'ioredis';
import { migrateDatabase } from '../../db/migrate';
import { Cipher } from '../../shared/crypto';
import { deleteKeysWithPrefix } from '../../shared/redis';
import { checkSealedData } from '../../shared/services/secrets/sealed-data';

/**
 * Each test run gets its own database and Redis key prefix, so it never touches anyone else's data and
 * two runs can share one server. TEST_DATABASE_URL / DATABASE_URL name the server to create it on.
 */
const runId = `${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
export const TEST_DB_NAME = `commerce_test_${runId}`;
export const TEST_QUEUE_PREFIX = `test_${runId}`;

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

export async function createTestDatabase(): Promise<void> {
  await withAdmin((admin) => admin.raw(`create database "${TEST_DB_NAME}"`));
  await migrateDatabase(testDatabaseUrl);
  // The sealed-data check value a first start leaves (docs/security.md, "Rotating APP_SECRET"), under the
  // run's APP_SECRET: a process started later on this database checks it, not whichever sealed row (some
  // suites store deliberately unreadable ones) it would otherwise probe.
  const knex = knexFactory({ client: 'pg', connection: testDatabaseUrl, pool: { min: 0, max: 1 } });
  try {
    await checkSealedData(knex, new Cipher(String(TEST_ENV.APP_SECRET)));
  } finally {
    await knex.destroy();
  }
}

export async function dropTestDatabase(): Promise<void> {
  await withAdmin((admin) => admin.raw(`drop database if exists "${TEST_DB_NAME}" with (force)`));
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
