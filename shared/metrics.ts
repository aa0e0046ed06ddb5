import type { BackoffOptions, Job } from 'bullmq';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Breakers } from './circuit-breaker';
import type { Logger } from './logger';
import type { Queues } from './queues';

/**
 * A registry of its own per owner (one per HTTP app), never prom-client's global one: a test run builds
 * many apps, and each must start from zero without "metric already registered" errors.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The job states exported per queue; `waiting` is what worker autoscaling reads. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** The delay BullMQ waited before retry number `attemptsMade` (built-in strategies, jitter aside). */
function retryDelayMs(backoff: number | BackoffOptions | undefined, attemptsMade: number): number {
  if (attemptsMade < 1 || backoff === undefined) return 0;
  if (typeof backoff === 'number') return backoff;
  const delay = backoff.delay ?? 0;
  if (backoff.type === 'fixed') return delay;
  if (backoff.type === 'exponential') return Math.round(2 ** (attemptsMade - 1) * delay);
  return 0;
}

/**
 * When a waiting job became ready to run (epoch ms). BullMQ keeps no such time, so it is derived: a new
 * job from when it was added plus its `delay`; a job that ran before (a retry, a stalled job, one handed
 * back at shutdown) from the start of its last attempt plus the back-off before this retry. The latter
 * is early by the failed attempt's own running time at most, never late: the age errs high, not low.
 * Without this a retry after an hours-long back-off (merchant webhooks) would look hours old the moment
 * it is due. A job retried by hand from the dashboard has no last start any more and counts from when it
 * was added.
 */
export function readySince(
  job: Pick<Job, 'timestamp' | 'processedOn' | 'attemptsMade'> & {
    opts: Pick<Job['opts'], 'delay' | 'backoff'>;
  },
): number {
  const added = job.timestamp + (job.opts.delay ?? 0);
  if (!job.processedOn) return added;
  return Math.max(added, job.processedOn + retryDelayMs(job.opts.backoff, job.attemptsMade));
}

/**
 * `bullmq_queue_jobs{queue, state}`, read from Redis on every scrape so the figure is never stale, and
 * `bullmq_queue_up{queue}` so a scrape during a Redis outage shows "unknown" rather than an empty queue.
 * `bullmq_queue_oldest_waiting_seconds{queue}`: how long the next job has been ready without a worker
 * taking it (0 when none waits), the signal that more workers are needed even while the count is small.
 */
export function registerQueueMetrics(registry: Registry, queues: Queues, logger: Logger): void {
  const up = new Gauge({
    name: 'bullmq_queue_up',
    help: '1 when the queue counts of the last scrape could be read from Redis, else 0',
    labelNames: ['queue'],
    registers: [registry],
  });
  new Gauge({
    name: 'bullmq_queue_oldest_waiting_seconds',
    help: 'Seconds the longest-waiting job of the queue has been ready to run (0 when none waits)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      await Promise.all(
        Object.values(queues).map(async (queue) => {
          try {
            // One script call reading one job per state. The wait list is taken from its tail, where
            // workers take jobs: new jobs are pushed at the head, so the tail has waited longest
            // (BullMQ's ascending order: index 0 is the tail). For prioritized jobs, the next to run
            // (the oldest of the highest priority); the platform adds none today.
            const next = await queue.getJobs(['waiting', 'prioritized'], 0, 0, true);
            const since = Math.min(...next.map(readySince));
            this.set({ queue: queue.name }, next.length ? Math.max(0, (now - since) / 1000) : 0);
          } catch (err) {
            // No sample for this queue rather than a 0 that reads as "nothing waits"; bullmq_queue_up
            // of the same scrape is 0 too when Redis is out of reach.
            logger.warn({ queue: queue.name, error: (err as Error).message }, 'could not read oldest job');
          }
        }),
      );
    },
  });
  new Gauge({
    name: 'bullmq_queue_jobs',
    help: 'Jobs per BullMQ queue and state (waiting includes prioritized jobs)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      await Promise.all(
        Object.values(queues).map(async (queue) => {
          try {
            const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
            // Prioritized jobs are ready to run too; a scaler must see them as waiting.
            const values: Record<string, number> = {
              ...counts,
              waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
            };
            for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, values[state] ?? 0);
            up.set({ queue: queue.name }, 1);
          } catch (err) {
            up.set({ queue: queue.name }, 0);
            logger.warn({ queue: queue.name, error: (err as Error).message }, 'could not read queue counts');
          }
        }),
      );
    },
  });
}

/**
 * `fivem_commands{state}`: every store's FiveM commands by state (pending, executed, withdrawn, expired,
 * failed), counted in Postgres on every scrape; `fivem_commands_up` is 0 when they could not be counted.
 */
export function registerFivemMetrics(
  registry: Registry,
  count: () => Promise<Record<string, number>>,
  logger: Logger,
): void {
  // prom-client collects every metric of a scrape at once: both gauges share one count per scrape.
  let inflight: Promise<Record<string, number> | null> | null = null;
  const read = (): Promise<Record<string, number> | null> =>
    (inflight ??= count()
      .catch((err: Error) => {
        logger.warn({ error: err.message }, 'could not count FiveM commands');
        return null;
      })
      .finally(() => {
        inflight = null;
      }));
  new Gauge({
    name: 'fivem_commands',
    help: 'FiveM commands by state (pending, executed, withdrawn, expired, failed)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const counts = await read();
      for (const [state, n] of Object.entries(counts ?? {})) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'fivem_commands_up',
    help: '1 when the FiveM command counts of this scrape could be read from Postgres, else 0',
    registers: [registry],
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
}

/** Breaker states as numbers: what alerting compares against. */
const BREAKER_STATE_VALUES = { closed: 0, 'half-open': 1, open: 2 } as const;

/**
 * `dependency_breaker_state{dependency}`: 0 closed, 1 half-open (a probe is out), 2 open (calls fail at
 * once); `dependency_breaker_openings_total{dependency}`: how often each opened since the process started.
 */
export function registerBreakerMetrics(registry: Registry, breakers: Breakers): void {
  const all = [breakers.postgres, breakers.redis];
  new Gauge({
    name: 'dependency_breaker_state',
    help: "State of a dependency's circuit breaker in this process: 0 closed, 1 half-open, 2 open",
    labelNames: ['dependency'],
    registers: [registry],
    collect() {
      for (const b of all) this.set({ dependency: b.dependency }, BREAKER_STATE_VALUES[b.state]);
    },
  });
  new Counter({
    name: 'dependency_breaker_openings_total',
    help: "Times a dependency's circuit breaker opened in this process",
    labelNames: ['dependency'],
    registers: [registry],
    collect() {
      this.reset();
      for (const b of all) this.inc({ dependency: b.dependency }, b.timesOpened);
    },
  });
}
