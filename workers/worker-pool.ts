import { DelayedError, Job, UnrecoverableError, Worker, WorkerOptions } from 'bullmq';
import { Config, ConfigError } from '../shared/config';
import { isTransientDependencyError } from '../shared/dependency-errors';
import type { Deps } from '../shared/deps';
import { bullPrefix, QUEUE_NAMES, QueueName } from '../shared/queues';
import { createRedis, RedisClient, redisTarget } from '../shared/redis';
import type { JobOf, ProcessorRegistry, QueueProcessor } from './processors';

/**
 * The queues a worker process serves: every queue with a processor, or the ones WORKER_QUEUES names.
 * A name that is not a queue, or a queue with nothing to process it yet, is a configuration mistake.
 */
export function servedQueues(registry: ProcessorRegistry, requested?: readonly string[]): QueueName[] {
  const available = QUEUE_NAMES.filter((name) => registry[name] !== undefined);
  if (!requested) return available;
  const served: QueueName[] = [];
  for (const name of requested) {
    const queue = QUEUE_NAMES.find((q) => q === name);
    if (!queue) {
      throw new ConfigError(
        'WORKER_QUEUES',
        `names unknown queue "${name}" (queues: ${QUEUE_NAMES.join(', ')})`,
      );
    }
    if (!available.includes(queue)) {
      throw new ConfigError(
        'WORKER_QUEUES',
        `names queue "${name}", which has no processor yet (served: ${available.join(', ')})`,
      );
    }
    if (!served.includes(queue)) served.push(queue);
  }
  return served;
}

/**
 * Jobs one worker process runs at once on each served queue: WORKER_CONCURRENCY_<QUEUE>, else
 * WORKER_CONCURRENCY, else the processor's own (docs/operations.md). A per-queue variable naming no queue
 * is a configuration mistake, reported with its name.
 */
export function queueConcurrency(
  registry: ProcessorRegistry,
  served: readonly QueueName[],
  settings: Config['workerConcurrency'],
): Record<QueueName, number> {
  for (const name of Object.keys(settings.byQueue)) {
    if (!QUEUE_NAMES.some((q) => q === name)) {
      throw new ConfigError(
        `WORKER_CONCURRENCY_${name.toUpperCase().replace(/-/g, '_')}`,
        `names unknown queue "${name}" (queues: ${QUEUE_NAMES.join(', ')})`,
      );
    }
  }
  const result = {} as Record<QueueName, number>;
  for (const queue of served) {
    const own = registry[queue]?.concurrency ?? 1;
    result[queue] = settings.byQueue[queue] ?? settings.all ?? own;
  }
  return result;
}

export interface WorkerPoolOptions {
  registry: ProcessorRegistry;
  /** WORKER_QUEUES: the subset of queues to serve. */
  queues?: readonly string[];
  /** Extra BullMQ worker settings (tests shorten the stalled-job check). */
  workerOptions?: Partial<Pick<WorkerOptions, 'stalledInterval' | 'lockDuration' | 'maxStalledCount'>>;
}

/** First delay after a dependency failure; doubled per deferral up to TRANSIENT_RETRY_MAX_DELAY_MS. */
const TRANSIENT_FIRST_DELAY_MS = 1_000;
/**
 * Times a job may lose its lock (worker killed, Redis out of reach past the lock) before BullMQ fails it.
 * BullMQ's default of 1 fails a job that two crashes in a row happened to interrupt.
 */
const MAX_STALLED_COUNT = 10;

/**
 * How a killed worker's jobs come back (docs/outages.md, "Workers"). BullMQ renews a running job's lock every
 * `lockDuration / 2` (whatever the job's length; only an event loop blocked that long would lose it) and a
 * job stays in the active list after its worker died. The stalled-job check marks the active jobs, and at
 * its next run moves every marked job whose lock has lapsed back to the wait list. A worker killed just
 * after a renewal leaves a lock that lapses `lockDuration` later, and the check after that moves the job:
 * back within `lockDuration + stalledInterval`, 25 s with the 15 s default.
 */
export function jobLockSettings(
  lockMs: number,
): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return {
    lockDuration: lockMs,
    stalledInterval: Math.round((lockMs * 2) / 3),
    maxStalledCount: MAX_STALLED_COUNT,
  };
}

/**
 * The delay before the next try of a job whose dependency is out of reach: exponential in the number of
 * deferrals so far (starts that did not end in a counted attempt), capped.
 */
export function transientRetryDelay(
  job: Pick<Job, 'attemptsStarted' | 'attemptsMade'>,
  maxMs: number,
): number {
  const deferrals = Math.max(0, job.attemptsStarted - job.attemptsMade - 1);
  return Math.min(TRANSIENT_FIRST_DELAY_MS * 2 ** Math.min(deferrals, 20), maxMs);
}

interface InFlight {
  job: Job;
  token: string;
}

/**
 * One BullMQ Worker per served queue, each on its own blocking connection (BullMQ's production guide:
 * maxRetriesPerRequest null, so a Redis restart pauses the worker instead of killing its loop).
 */
export class WorkerPool {
  private readonly inFlight = new Map<string, InFlight>();

  private constructor(
    private readonly deps: Deps,
    readonly queues: readonly QueueName[],
    /** Jobs run at once per queue (queueConcurrency). */
    readonly concurrency: Readonly<Record<QueueName, number>>,
    private readonly workers: Worker[],
    private readonly connections: RedisClient[],
  ) {}

  static async start(deps: Deps, opts: WorkerPoolOptions): Promise<WorkerPool> {
    const queues = servedQueues(opts.registry, opts.queues);
    const concurrency = queueConcurrency(opts.registry, queues, deps.config.workerConcurrency);
    const workers: Worker[] = [];
    const connections: RedisClient[] = [];
    const pool = new WorkerPool(deps, queues, concurrency, workers, connections);
    for (const queue of queues) {
      const processor = opts.registry[queue];
      if (!processor) continue;
      // REDIS_CLUSTER_NODES when set: a cluster client whose node connections wait out a failover.
      const connection = createRedis(
        redisTarget(deps.config),
        'worker',
        `${deps.config.queuePrefix}:worker:${queue}`,
      );
      connection.on('error', (err: Error) =>
        deps.logger.warn({ queue, err: err.message }, 'redis connection error'),
      );
      connections.push(connection);
      workers.push(pool.createWorker(queue, processor, connection, opts.workerOptions ?? {}));
    }
    try {
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    } catch (err) {
      await pool.close(0);
      throw err;
    }
    return pool;
  }

  private createWorker<N extends QueueName>(
    queue: N,
    processor: QueueProcessor<N>,
    connection: RedisClient,
    extra: WorkerPoolOptions['workerOptions'],
  ): Worker {
    const { deps, inFlight } = this;
    const worker = new Worker<JobOf<N>['data'], unknown, string>(
      queue,
      async (job, token) => {
        const key = `${queue}:${job.id}`;
        if (token) inFlight.set(key, { job, token });
        try {
          return await processor.process(job, deps);
        } catch (err) {
          throw await this.deferIfTransient(job, token, err);
        } finally {
          inFlight.delete(key);
        }
      },
      {
        ...jobLockSettings(deps.config.timeouts.jobLockMs),
        ...extra,
        connection,
        prefix: bullPrefix(deps.config.queuePrefix),
        concurrency: this.concurrency[queue],
      },
    );
    worker.on('failed', (job, err) => {
      if (!job) return;
      const attempts = job.opts.attempts ?? 1;
      const willRetry = err.name !== 'UnrecoverableError' && job.attemptsMade < attempts;
      // Ids, counts and the error only: payloads may identify customers.
      deps.logger.warn(
        {
          queue,
          jobId: job.id,
          jobName: job.name,
          attempt: job.attemptsMade,
          attempts,
          willRetry,
          error: err.message,
        },
        willRetry ? 'job failed; will retry' : 'job failed permanently',
      );
    });
    worker.on('error', (err) => deps.logger.error({ queue, error: err.message }, 'worker error'));
    if (processor.drained) worker.on('drained', () => processor.drained!(deps));
    return worker;
  }

  /**
   * Postgres or Redis out of reach (refused, timed out) says nothing about the job: it goes back to the
   * delayed set with a growing delay and WITHOUT spending one of its attempts, so an outage of any length
   * loses no job (BullMQ's DelayedError pattern). Anything else is returned as is for BullMQ's usual retry
   * or failure. When Redis itself cannot take the job back, its lock lapses and the stalled-job check
   * returns it to the queue once Redis is back.
   */
  private async deferIfTransient(job: Job, token: string | undefined, err: unknown): Promise<unknown> {
    if (!token || err instanceof UnrecoverableError || !isTransientDependencyError(err)) return err;
    // A job still failing this way long after it was added fails for some other reason that merely looks
    // like an outage (a query that always times out): from then on its failures spend attempts as usual.
    if (Date.now() - job.timestamp >= this.deps.config.timeouts.transientDeferralLimitMs) return err;
    const delay = transientRetryDelay(job, this.deps.config.timeouts.transientRetryMaxDelayMs);
    try {
      await job.moveToDelayed(Date.now() + delay, token);
    } catch (moveErr) {
      this.deps.logger.warn(
        { queue: job.queueName, jobId: job.id, error: (moveErr as Error).message },
        'could not defer job; it returns to the queue when its lock lapses',
      );
      return err;
    }
    this.deps.logger.warn(
      { queue: job.queueName, jobId: job.id, delayMs: delay, error: (err as Error).message },
      'dependency unavailable; job deferred without spending an attempt',
    );
    return new DelayedError();
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for the running ones. Jobs still running then are handed
   * back to the wait list at once (rather than waiting for their lock to expire), so another worker takes
   * them over; jobs are safe to run twice. Resolves with the number handed back.
   */
  async close(graceMs: number): Promise<{ handedBack: number }> {
    const closing = Promise.allSettled(this.workers.map((w) => w.close()));
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      closing.then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs);
      }),
    ]);
    clearTimeout(timer);
    let handedBack = 0;
    if (!finished) handedBack = await this.handBack();
    await Promise.allSettled(this.connections.map((c) => c.quit()));
    for (const c of this.connections) c.disconnect();
    return { handedBack };
  }

  private async handBack(): Promise<number> {
    let count = 0;
    for (const [key, { job, token }] of this.inFlight) {
      try {
        await job.moveToWait(token);
        count += 1;
        this.deps.logger.warn(
          { queue: job.queueName, jobId: job.id },
          'job still running at shutdown; handed back',
        );
      } catch (err) {
        // The lock is gone already (job finished or was taken over); the stalled check covers the rest.
        this.deps.logger.warn(
          { queue: job.queueName, jobId: job.id, error: (err as Error).message },
          'hand-back failed',
        );
      }
      this.inFlight.delete(key);
    }
    return count;
  }
}
