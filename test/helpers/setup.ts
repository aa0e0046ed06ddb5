import { closeSharedBrowser } from './browser';
import { closeSharedDeps } from './deps';
import { createTestDatabase, deleteRedisKeys, dropTestDatabase, TEST_QUEUE_PREFIX } from './env';

/**
 * Mocha root hooks: one database and Redis prefix for the whole run, removed at the end; the shared
 * browser of the real-browser tests (test/helpers/browser.ts), when one was launched, is closed too.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await createTestDatabase();
  },
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(60_000);
    await closeSharedBrowser();
    await closeSharedDeps();
    await deleteRedisKeys(TEST_QUEUE_PREFIX);
    if (!process.env.KEEP_TEST_DB) await dropTestDatabase();
  },
};
