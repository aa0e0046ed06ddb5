import { Worker } from 'bullmq';
import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { bullPrefix, enqueue, QUEUE_NAMES, type QueueName } from '../../../shared/queues';
import { createRedis, redisTarget } from '../../../shared/redis';
import { isolatedDeps } from '../../helpers/deps';
import { waitFor } from './support';

/**
 * Finished jobs are not kept in Redis beyond what an operator needs (docs/runbook.md, "Job retention"):
 * the platform's own queues (createQueues), real BullMQ workers that complete or fail every job, and the
 * counts Redis holds afterwards.
 */
describe('queues: finished jobs retention', function () {
  this.timeout(60_000);
  let deps: Deps;

  before(async () => {
    deps = await isolatedDeps();
  });

  /** Runs `total` jobs of `queue` through a worker that completes them (or fails every `failEvery`th). */
  async function runJobs(queue: QueueName, total: number, failEvery = 0): Promise<void> {
    let seen = 0;
    const worker = new Worker(
      queue,
      async () => {
        seen += 1;
        if (failEvery > 0 && seen % failEvery === 0) throw new Error('refused');
      },
      {
        connection: createRedis(redisTarget(deps.config), 'worker'),
        prefix: bullPrefix(deps.config.queuePrefix),
        concurrency: 20,
      },
    );
    try {
      for (let i = 0; i < total; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, total - i) }, (_, j) =>
            queue === 'analytics'
              ? enqueue(
                  deps.queues,
                  'analytics',
                  { storeId: 1, receivedAt: new Date().toISOString(), events: [{ i: i + j }] },
                  { jobId: `ev-retention-${i + j}`, attempts: 1 },
                )
              : enqueue(deps.queues, 'licenses', { kind: 'generate', orderItemId: i + j }, { attempts: 1 }),
          ),
        );
      }
      await waitFor(
        `${total} ${queue} jobs finished`,
        async () => {
          const counts = await deps.queues[queue].getJobCounts('waiting', 'active', 'delayed');
          return counts.waiting + counts.active + counts.delayed === 0 && seen >= total;
        },
        30_000,
        50,
      );
    } finally {
      await worker.close();
      await worker.disconnect();
    }
  }

  it('keeps the last 100 completed analytics jobs, not every payload it ever wrote', async () => {
    await runJobs('analytics', 300);
    const { completed } = await deps.queues.analytics.getJobCounts('completed');
    expect(completed).to.be.within(1, 100);
  });

  it('keeps at most 1,000 completed jobs of another queue, and failed ones beside them', async () => {
    await runJobs('licenses', 1_200, 100);
    const counts = await deps.queues.licenses.getJobCounts('completed', 'failed');
    expect(counts.completed).to.be.within(900, 1_000);
    expect(counts.failed, 'failed jobs stay for the operator').to.equal(12);
    const options = deps.queues.licenses.defaultJobOptions;
    expect(options.removeOnFail).to.deep.equal({ age: 14 * 24 * 3600, count: 10_000 });
  });

  it('bounds the finished jobs of every queue by age and by count', () => {
    for (const name of QUEUE_NAMES) {
      const { removeOnComplete, removeOnFail } = deps.queues[name].defaultJobOptions;
      for (const [kind, kept] of [
        ['completed', removeOnComplete],
        ['failed', removeOnFail],
      ] as const) {
        expect(kept, `${name} ${kind}`).to.be.an('object');
        const { age, count } = kept as { age?: number; count?: number };
        expect(age, `${name} ${kind} age`).to.be.within(3600, 14 * 24 * 3600);
        expect(count, `${name} ${kind} count`).to.be.within(100, 10_000);
      }
    }
    expect(deps.queues.otp.defaultJobOptions.removeOnFail).to.deep.equal({ age: 24 * 3600, count: 1_000 });
  });
});
