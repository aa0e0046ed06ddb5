import { closeSharedBrowser } from './browser';
import { closeSharedDeps, sharedDeps } from './deps';
import {
  createTemplateDatabase,
  createTestDatabase,
  deleteRedisKeys,
  dropRunDatabases,
  resetTestDatabase,
  TEST_RUN_QUEUE_PREFIX,
} from './env';

/**
 * Mocha's global fixtures run once per run, in the process that runs Mocha, before any worker starts:
 * the run's migrated template database, and at the end every database and Redis key of the run
 * (test/helpers/env.ts names them). KEEP_TEST_DB keeps the databases for a look afterwards.
 */
export async function mochaGlobalSetup(): Promise<void> {
  await createTemplateDatabase();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await deleteRedisKeys(TEST_RUN_QUEUE_PREFIX);
  if (!process.env.KEEP_TEST_DB) await dropRunDatabases();
}

/**
 * Mocha root hooks. In a serial run they wrap the whole run; in parallel mode they wrap each file, in the
 * worker that runs it. Either way the process's database exists before the first test (cloned once per
 * process), and the shared browser and connections of test/helpers are closed after, so a worker holds
 * nothing open between files.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await createTestDatabase();
    // In parallel mode a worker's files share its database: each starts from the template's state.
    await resetTestDatabase();
    // Binds the models of the data builders (test/helpers/builders.ts) to this process's database, for
    // files that build rows before (or without) asking for deps themselves; in parallel mode the previous
    // file's afterAll closed the connections they were bound to.
    await sharedDeps();
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await closeSharedBrowser();
    await closeSharedDeps();
  },
};
