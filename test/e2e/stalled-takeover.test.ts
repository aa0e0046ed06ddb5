import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Deps } from '../../shared/deps';
import { enqueue } from '../../shared/queues';
import { createProduct, createStore } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { waitFor } from '../integration/queues/support';
import { launch, Running, untilReady } from './support';

/**
 * A real worker process killed with `kill -9` in the middle of a job: its lock lapses and another worker
 * process takes the job over and finishes it (docs/outages.md, "Workers"). The lock is shortened through
 * JOB_LOCK_DURATION_MS (1.5 s, so the stalled-job check runs every second); the production figures are
 * asserted in test/unit/job-lock.test.ts.
 */
describe('stalled job taken over after kill -9 (real worker processes)', function () {
  this.timeout(60_000);
  let deps: Deps;
  const started: Running[] = [];
  let lock: Knex.Transaction | undefined;

  before(async () => {
    deps = await isolatedDeps({ JOB_LOCK_DURATION_MS: '1500' });
  });
  after(async () => {
    for (const run of started.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    if (lock && !lock.isCompleted()) await lock.rollback();
  });

  async function startWorker(): Promise<Running> {
    const run = await launch('worker', {
      QUEUE_PREFIX: deps.config.queuePrefix,
      JOB_LOCK_DURATION_MS: '1500',
    });
    started.push(run);
    await untilReady(run, 'worker');
    return run;
  }

  it('moves the killed worker’s job back and a second worker completes it', async () => {
    const store = await createStore();
    const product = await createProduct(store);
    const [row] = await deps
      .knex('licenses')
      .insert({
        store_id: store.id,
        product_id: product.id,
        key: `STALL-${Date.now()}`,
        status: 'active',
        expires_at: new Date(Date.now() - 1_000),
      })
      .returning<{ id: number }[]>('id');
    // Holding this lock keeps the expire-licenses job blocked on its UPDATE: the worker dies mid-job.
    lock = await deps.knex.transaction();
    await lock.raw('lock table licenses in share mode');

    const first = await startWorker();
    const jobId = 'stall-takeover';
    await enqueue(deps.queues, 'maintenance', { task: 'expire-licenses', tick: 'stall' }, { jobId });
    await waitFor('the job to be running in the first worker', async () => {
      const job = await deps.queues.maintenance.getJob(jobId);
      return (await job?.getState()) === 'active';
    });
    first.child.kill('SIGKILL');
    const { code } = await first.exited;
    expect(code, 'killed, not stopped').to.equal(null);
    expect(first.child.signalCode).to.equal('SIGKILL');
    await lock.commit();

    await startWorker();
    await waitFor(
      'the second worker to finish the job',
      async () => (await (await deps.queues.maintenance.getJob(jobId))?.getState()) === 'completed',
      20_000,
    );
    const job = await deps.queues.maintenance.getJob(jobId);
    // Taken over from the killed worker: BullMQ counted it as stalled once.
    expect(job?.stalledCounter).to.equal(1);
    expect(await deps.knex('licenses').where({ id: row.id }).first('status')).to.deep.equal({
      status: 'expired',
    });
  });
});
