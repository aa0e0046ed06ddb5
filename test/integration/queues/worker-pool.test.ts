import { expect } from 'chai';
import { UnrecoverableError } from 'bullmq';
import { ConfigError } from '../../../shared/config';
import type { Deps } from '../../../shared/deps';
import { DEFAULT_JOB_OPTIONS, enqueue } from '../../../shared/queues';
import { processors, ProcessorRegistry } from '../../../workers/processors';
import { queueConcurrency, servedQueues, WorkerPool } from '../../../workers/worker-pool';
import { isolatedDeps } from '../../helpers/deps';
import { sleep, waitFor } from './support';

describe('worker pool', () => {
  describe('choosing the queues to serve', () => {
    const registry: ProcessorRegistry = {
      maintenance: processors.maintenance,
      fivem: { concurrency: 1, process: async () => null },
    };

    it('serves every queue with a processor unless WORKER_QUEUES names some', () => {
      expect(servedQueues(registry)).to.deep.equal(['fivem', 'maintenance']);
      expect(servedQueues(registry, ['maintenance', 'maintenance'])).to.deep.equal(['maintenance']);
    });

    it('refuses an unknown queue name, naming the variable and the name', () => {
      expect(() => servedQueues(registry, ['maintenance', 'telegrams']))
        .to.throw(ConfigError, 'WORKER_QUEUES names unknown queue "telegrams"')
        .with.property('variable', 'WORKER_QUEUES');
    });

    it('runs each queue at WORKER_CONCURRENCY_<QUEUE>, else WORKER_CONCURRENCY, else its own figure', () => {
      const served = servedQueues(registry);
      expect(queueConcurrency(registry, served, { byQueue: {} })).to.deep.equal({
        fivem: 1,
        maintenance: processors.maintenance!.concurrency,
      });
      expect(queueConcurrency(registry, served, { all: 7, byQueue: {} })).to.deep.equal({
        fivem: 7,
        maintenance: 7,
      });
      expect(queueConcurrency(registry, served, { all: 7, byQueue: { fivem: 12, otp: 3 } })).to.deep.equal({
        fivem: 12,
        maintenance: 7,
      });
    });

    it('refuses a WORKER_CONCURRENCY_<QUEUE> that names no queue, naming the variable', () => {
      expect(() => queueConcurrency(registry, servedQueues(registry), { byQueue: { telegrams: 2 } }))
        .to.throw(ConfigError, 'WORKER_CONCURRENCY_TELEGRAMS names unknown queue "telegrams"')
        .with.property('variable', 'WORKER_CONCURRENCY_TELEGRAMS');
    });

    it('refuses a queue that has no processor yet', () => {
      expect(() => servedQueues(registry, ['otp'])).to.throw(
        ConfigError,
        'names queue "otp", which has no processor yet',
      );
    });
  });

  describe('processing and shutdown', () => {
    let deps: Deps;
    let pool: WorkerPool | undefined;

    beforeEach(async () => {
      deps = await isolatedDeps();
    });
    afterEach(async () => {
      await pool?.close(500);
      pool = undefined;
    });

    /** A processor whose behaviour each test scripts through the job's data. */
    function fivemRegistry(
      process: (orderId: number, attempt: number) => Promise<unknown>,
    ): ProcessorRegistry {
      return { fivem: { concurrency: 2, process: (job) => process(job.data.orderId, job.attemptsMade + 1) } };
    }

    async function stateOf(jobId: string): Promise<string> {
      const job = await deps.queues.fivem.getJob(jobId);
      return job ? job.getState() : 'missing';
    }

    it('retries a failing job with back-off, and keeps an unrecoverable one in the failed set after one attempt', async () => {
      const attemptsAt: number[] = [];
      pool = await WorkerPool.start(deps, {
        registry: fivemRegistry(async (orderId, attempt) => {
          if (orderId === 1) throw new UnrecoverableError('order 1 can never be fulfilled');
          attemptsAt.push(Date.now());
          if (attempt < 3) throw new Error(`transient failure ${attempt}`);
          return { fulfilled: orderId };
        }),
      });
      expect(pool.queues).to.deep.equal(['fivem']);

      await enqueue(deps.queues, 'fivem', { orderId: 1 }, { jobId: 'permanent' });
      await enqueue(
        deps.queues,
        'fivem',
        { orderId: 2 },
        { jobId: 'flaky', backoff: { type: 'exponential', delay: 100 } },
      );

      await waitFor('the flaky job to complete', async () => (await stateOf('flaky')) === 'completed');
      const flaky = await deps.queues.fivem.getJob('flaky');
      expect(flaky?.returnvalue).to.deep.equal({ fulfilled: 2 });
      expect(attemptsAt).to.have.length(3);
      // Exponential: ~100 ms before the second attempt, ~200 ms before the third.
      expect(attemptsAt[1] - attemptsAt[0]).to.be.at.least(90);
      expect(attemptsAt[2] - attemptsAt[1]).to.be.at.least(180);

      const permanent = await deps.queues.fivem.getJob('permanent');
      expect(await permanent?.getState()).to.equal('failed');
      expect(permanent?.attemptsMade).to.equal(1);
      expect(permanent?.failedReason).to.equal('order 1 can never be fulfilled');
      // Failed jobs stay for operators (two weeks by the queue defaults).
      expect(permanent?.opts.removeOnFail).to.deep.equal(DEFAULT_JOB_OPTIONS.removeOnFail);
    });

    it('lets a running job finish when it ends within the grace period', async () => {
      let finished = false;
      pool = await WorkerPool.start(deps, {
        registry: fivemRegistry(async () => {
          await sleep(400);
          finished = true;
          return 'done';
        }),
      });
      await enqueue(deps.queues, 'fivem', { orderId: 7 }, { jobId: 'short' });
      await waitFor('the job to start', async () => (await stateOf('short')) === 'active');

      const { handedBack } = await pool.close(5_000);
      pool = undefined;
      expect(handedBack).to.equal(0);
      expect(finished).to.equal(true);
      expect(await stateOf('short')).to.equal('completed');
    });

    it('hands a job still running at the deadline back to the queue, where the next worker completes it', async () => {
      let runs = 0;
      const slow = fivemRegistry(async () => {
        runs += 1;
        await sleep(runs === 1 ? 1_500 : 10);
        return `run ${runs}`;
      });
      pool = await WorkerPool.start(deps, { registry: slow });
      await enqueue(deps.queues, 'fivem', { orderId: 8 }, { jobId: 'long' });
      await waitFor('the job to start', async () => (await stateOf('long')) === 'active');

      const started = Date.now();
      const { handedBack } = await pool.close(200);
      pool = undefined;
      expect(Date.now() - started).to.be.below(1_000);
      expect(handedBack).to.equal(1);
      expect(await stateOf('long')).to.equal('waiting');

      pool = await WorkerPool.start(deps, { registry: slow });
      await waitFor(
        'the job to complete on the next worker',
        async () => (await stateOf('long')) === 'completed',
      );
      expect(runs).to.equal(2);
      // Let the first, abandoned run end before the suite moves on.
      await sleep(1_500);
    });
  });
});
