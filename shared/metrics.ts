import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
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

/**
 * `bullmq_queue_jobs{queue, state}`, read from Redis on every scrape so the figure is never stale, and
 * `bullmq_queue_up{queue}` so a scrape during a Redis outage shows "unknown" rather than an empty queue.
 */
export function registerQueueMetrics(registry: Registry, queues: Queues, logger: Logger): void {
  const up = new Gauge({
    name: 'bullmq_queue_up',
    help: '1 when the queue counts of the last scrape could be read from Redis, else 0',
    labelNames: ['queue'],
    registers: [registry],
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
