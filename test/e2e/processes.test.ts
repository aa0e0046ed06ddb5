import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps';
import { enqueue } from '../../shared/queues';
import { createProduct, createStore } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { waitFor } from '../integration/queues/support';
import { Entry, launch, READY, Running, terminate, untilReady } from './support';

/**
 * The Procfile's long-running processes, run for real: each logs a ready line, exits 0 soon after SIGTERM,
 * and refuses to start (non-zero, with a message) when Redis, Postgres or its configuration is bad.
 */

describe('processes (Procfile web, worker, scheduler)', function () {
  this.timeout(60_000);
  let deps: Deps;
  const started: Running[] = [];

  async function start(entry: Entry, env: NodeJS.ProcessEnv = {}): Promise<Running> {
    const run = await launch(entry, { QUEUE_PREFIX: deps.config.queuePrefix, ...env });
    started.push(run);
    return run;
  }

  before(async () => {
    deps = await isolatedDeps();
  });
  afterEach(() => {
    // A failed assertion must not leave a process behind.
    for (const run of started.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  });

  for (const entry of ['web', 'worker', 'scheduler'] as const) {
    it(`${entry}: logs one ready line, then exits 0 within 10 s of SIGTERM`, async () => {
      const run = await start(entry);
      await untilReady(run, entry);
      expect(run.output.stdout.split('\n').filter((l) => READY[entry].test(l))).to.have.length(1);
      const { code, ms } = await terminate(run);
      expect(code, run.output.stderr).to.equal(0);
      expect(ms).to.be.below(10_000);
    });
  }

  describe('worker shutdown with a job in flight', () => {
    let licenseId: number;
    let lock: Knex.Transaction;

    beforeEach(async () => {
      const store = await createStore();
      const product = await createProduct(store);
      const [row] = await deps
        .knex('licenses')
        .insert({
          store_id: store.id,
          product_id: product.id,
          key: `E2E-${Date.now()}`,
          status: 'active',
          expires_at: new Date(Date.now() - 1_000),
        })
        .returning('id');
      licenseId = row.id;
      // Holding this lock keeps the expire-licenses job running (blocked on its UPDATE) until released.
      lock = await deps.knex.transaction();
      await lock.raw('lock table licenses in share mode');
    });
    afterEach(async () => {
      if (!lock.isCompleted()) await lock.rollback();
    });

    async function startBlockedJob(run: Running, jobId: string): Promise<void> {
      await untilReady(run, 'worker');
      await enqueue(deps.queues, 'maintenance', { task: 'expire-licenses', tick: 'e2e' }, { jobId });
      await waitFor('the job to be running', async () => {
        const job = await deps.queues.maintenance.getJob(jobId);
        return (await job?.getState()) === 'active';
      });
    }

    it('finishes the running job before exiting 0', async () => {
      const run = await start('worker');
      await startBlockedJob(run, 'e2e-finish');

      run.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(run.child.exitCode, 'the worker waits for its job').to.equal(null);
      await lock.commit();

      const { code } = await run.exited;
      expect(code, run.output.stderr).to.equal(0);
      const job = await deps.queues.maintenance.getJob('e2e-finish');
      expect(await job?.getState()).to.equal('completed');
      expect(await deps.knex('licenses').where({ id: licenseId }).first('status')).to.deep.equal({
        status: 'expired',
      });
    });

    it('hands a job still running at the deadline back to the queue and exits 0', async () => {
      const run = await start('worker', { SHUTDOWN_TIMEOUT_MS: '1500' });
      await startBlockedJob(run, 'e2e-handback');

      const { code, ms } = await terminate(run);
      expect(code, run.output.stderr).to.equal(0);
      expect(ms).to.be.below(3_000);
      const job = await deps.queues.maintenance.getJob('e2e-handback');
      expect(await job?.getState()).to.equal('waiting');
      expect(run.output.stdout).to.include('handed back');
    });
  });

  describe('refusing to start', () => {
    /** Starts all three with `env` and returns each one's exit code, stderr and time to exit. */
    async function failures(
      env: NodeJS.ProcessEnv,
    ): Promise<Record<Entry, { code: number | null; stderr: string; ms: number }>> {
      const entries = ['web', 'worker', 'scheduler'] as const;
      const results = await Promise.all(
        entries.map(async (entry) => {
          const began = Date.now();
          const run = await start(entry, env);
          const { code, at } = await run.exited;
          return [entry, { code, stderr: run.output.stderr, ms: at - began }] as const;
        }),
      );
      return Object.fromEntries(results) as Record<
        Entry,
        { code: number | null; stderr: string; ms: number }
      >;
    }

    // The bound says "gives up instead of retrying forever", not how fast: three processes start from source
    // at once beside the rest of the suite, and compiling alone can take several seconds each.
    const GIVES_UP_WITHIN_MS = 30_000;

    it('exits non-zero with a clear message when Redis is unreachable', async () => {
      for (const [entry, result] of Object.entries(await failures({ REDIS_URL: 'redis://127.0.0.1:1' }))) {
        expect(result.code, entry).to.equal(1);
        expect(result.stderr, entry).to.include(`${entry}: Redis is not reachable at redis://127.0.0.1:1`);
        expect(result.ms, entry).to.be.below(GIVES_UP_WITHIN_MS);
      }
    });

    it('exits non-zero with a clear message when Postgres is unreachable', async () => {
      const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' };
      for (const [entry, result] of Object.entries(await failures(env))) {
        expect(result.code, entry).to.equal(1);
        expect(result.stderr, entry).to.include(
          `${entry}: Postgres is not reachable at postgres://postgres@127.0.0.1:1/x`,
        );
        expect(result.ms, entry).to.be.below(GIVES_UP_WITHIN_MS);
      }
    });

    it('exits 1 naming the variable when a setting is bad', async () => {
      for (const [entry, result] of Object.entries(await failures({ OTP_TTL_SECONDS: '-5' }))) {
        expect(result.code, entry).to.equal(1);
        expect(result.stderr, entry).to.match(/Invalid configuration: OTP_TTL_SECONDS/);
      }
    });

    it('worker: exits 1 naming WORKER_QUEUES when it names an unknown queue', async () => {
      const run = await start('worker', { WORKER_QUEUES: 'maintenance,telegrams' });
      const { code } = await run.exited;
      expect(code).to.equal(1);
      expect(run.output.stderr).to.include('WORKER_QUEUES names unknown queue "telegrams"');
    });
  });
});
