import crypto from 'node:crypto';
import { Config, configWith } from '../../shared/config';
import { Model } from 'objection';
import { createDeps, Deps } from '../../shared/deps';
import { TEST_ENV, TEST_QUEUE_PREFIX } from './env';

let shared: Promise<Deps> | null = null;
const extra: Deps[] = [];

export function testConfig(overrides: NodeJS.ProcessEnv = {}): Config {
  return configWith({ ...TEST_ENV, ...overrides }, {});
}

/** Deps on the run's database and Redis prefix, shared by every suite that needs no special settings. */
export function sharedDeps(): Promise<Deps> {
  shared ??= createDeps(testConfig(), { role: 'test', pool: { min: 0, max: 8 } });
  // Bound again on every call: a suite with a private database may have bound the models to it.
  return shared.then(bindModels);
}

/**
 * Test code only: the data builders and assertions read and write rows through the models without
 * naming a connection, so they are bound to the run's database here. The platform's own code never
 * relies on this (test/unit/wiring.test.ts).
 */
function bindModels(deps: Deps): Deps {
  Model.knex(deps.knex);
  return deps;
}

/**
 * Deps with their own settings and, unless given, their own Redis key prefix (a fresh set of queues and
 * rate-limit counters). Closed at the end of the run.
 */
export async function isolatedDeps(overrides: NodeJS.ProcessEnv = {}): Promise<Deps> {
  const prefix = `${TEST_QUEUE_PREFIX}_${crypto.randomBytes(3).toString('hex')}`;
  // Small pools: a run builds many of these, and Postgres allows 100 connections in all.
  const deps = await createDeps(testConfig({ QUEUE_PREFIX: prefix, ...overrides }), {
    role: 'test',
    pool: { min: 0, max: 4 },
  });
  extra.push(deps);
  return bindModels(deps);
}

const onClose: (() => void)[] = [];

/**
 * `forget` runs when the harness closes every deps (the root hook's afterAll: once a run, or once a file
 * in parallel mode, where a worker process runs many files), so a helper's cache of deps or of things
 * built on them starts afresh instead of handing out closed connections.
 */
export function forgetOnClose(forget: () => void): void {
  onClose.push(forget);
}

export async function closeSharedDeps(): Promise<void> {
  for (const forget of onClose) forget();
  const all = [...extra.splice(0)];
  if (shared) all.push(await shared);
  shared = null;
  await Promise.allSettled(all.map((d) => d.close()));
}

/** Empties every table but the migration bookkeeping and platform settings. */
export async function truncateAll(deps: Deps): Promise<void> {
  const { rows } = await deps.knex.raw<{ rows: { tablename: string }[] }>(
    "select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' and tablename <> 'platform_settings'",
  );
  if (rows.length === 0) return;
  await deps.knex.raw(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} restart identity cascade`);
}
