import { createDeps } from '../shared/deps';
import { runProcess } from '../shared/process';
import { processors } from './processors';
import { queueConcurrency, servedQueues, WorkerPool } from './worker-pool';

/** Time kept back from SHUTDOWN_TIMEOUT_MS to hand unfinished jobs back and close connections. */
const CLEANUP_RESERVE_MS = 1_000;

/**
 * The `worker` process (docs/operations.md): one BullMQ Worker per served queue. On SIGTERM running jobs
 * get until the shutdown deadline to finish; whatever is still running then goes back to the queue.
 */
void runProcess('worker', async (config, logger) => {
  // A bad WORKER_QUEUES or WORKER_CONCURRENCY_<QUEUE> is reported before any connection is opened.
  queueConcurrency(processors, servedQueues(processors, config.workerQueues), config.workerConcurrency);
  const deps = await createDeps(config, { role: 'worker', logger });
  let pool: WorkerPool;
  try {
    pool = await WorkerPool.start(deps, { registry: processors, queues: config.workerQueues });
  } catch (err) {
    await deps.close();
    throw err;
  }
  logger.info(
    { queues: pool.queues, concurrency: pool.concurrency },
    `worker ready: queues ${pool.queues.join(', ')}`,
  );

  return {
    async stop() {
      const graceMs = Math.max(config.shutdownTimeoutMs - CLEANUP_RESERVE_MS, 500);
      const { handedBack } = await pool.close(graceMs);
      if (handedBack > 0) logger.warn({ handedBack }, 'jobs handed back to the queue at shutdown');
      // A job handed back may still hold a database connection; knex would wait for it indefinitely.
      await Promise.race([
        deps.close(),
        new Promise<void>((resolve) => setTimeout(resolve, CLEANUP_RESERVE_MS / 2).unref()),
      ]);
    },
  };
});
