import { UnrecoverableError } from 'bullmq';
import type { Deps } from '../../shared/deps';
import type { EventRow } from '../../shared/services/analytics';
import {
  AnalyticsWriter,
  DEFAULT_WRITER_OPTIONS,
  ingestRows,
  WriterOptions,
} from '../../shared/services/analytics/writer';
import type { QueueProcessor } from './types';

/**
 * The `analytics` queue: each job holds the events one web process accepted for one store within a few
 * milliseconds (shared/services/analytics/batcher.ts). Jobs wait for the batch
 * their rows joined (AnalyticsWriter: 10,000 rows, every running job waiting, the queue drained, or 1 s) and complete only once it is committed, so a
 * worker stopped at any point leaves its jobs to run again, and the ingest keys keep a re-run from
 * writing a row twice. Many jobs run at once so that one batch gathers many requests.
 */
export function createAnalyticsProcessor(options: Partial<WriterOptions> = {}): QueueProcessor<'analytics'> {
  const concurrency = 100;
  const writers = new WeakMap<Deps, AnalyticsWriter>();
  const writerOf = (deps: Deps): AnalyticsWriter => {
    let writer = writers.get(deps);
    if (!writer) {
      writer = new AnalyticsWriter(deps.knex, {
        ...DEFAULT_WRITER_OPTIONS,
        maxCallers: concurrency,
        ...options,
      });
      writers.set(deps, writer);
    }
    return writer;
  };
  return {
    concurrency,
    async process(job, deps) {
      const { storeId, receivedAt, events } = job.data;
      if (!Number.isInteger(storeId) || !Array.isArray(events) || typeof receivedAt !== 'string') {
        throw new UnrecoverableError('malformed analytics job');
      }
      const rows = ingestRows(String(job.id), storeId, receivedAt, events as unknown as EventRow[]);
      try {
        await writerOf(deps).add(rows);
      } catch (err) {
        // A foreign key violation: the store was deleted since; retrying cannot help.
        if ((err as { code?: string }).code === '23503') {
          throw new UnrecoverableError(`store ${storeId} no longer exists`);
        }
        throw err;
      }
      return { written: rows.length };
    },
    // Nothing more is waiting: the rows gathered so far are the batch, rather than waiting out maxWaitMs.
    drained(deps) {
      void writers.get(deps)?.flush();
    },
  };
}

export const analyticsProcessor = createAnalyticsProcessor();
