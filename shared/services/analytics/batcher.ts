import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Queues } from '../../queues';
import { abandonJob } from '../../queues/outbox';
import type { EventRow } from './index';

export interface BatcherOptions {
  /** Longest an accepted event waits for others before its job is added. */
  maxWaitMs: number;
  /** Events that make a store's job be added at once. */
  maxEvents: number;
}

/** A few milliseconds: what a busy process accepts in that time becomes one job per store. */
export const DEFAULT_BATCHER_OPTIONS: BatcherOptions = { maxWaitMs: 5, maxEvents: 300 };

interface Batch {
  storeId: number;
  receivedAt: string;
  rows: EventRow[];
  waiters: { resolve: () => void; reject: (err: unknown) => void }[];
}

export interface BatcherDeps {
  queues: Queues;
  /** Where a job whose add failed is marked abandoned (shared/queues/outbox.ts). */
  knex: Knex;
}

/**
 * The analytics collector's per-process micro-batch (docs/performance.md): the events accepted by the
 * collect requests of the next few milliseconds are handed to the `analytics` queue together, one job per
 * store, all in one `addBulk` (one Redis round trip for all of them). Each request still waits for its
 * events to be in Redis before it answers 202, and is refused (the client sends them again) when the add
 * failed, as before: what changes is that many requests share the round trip, and the worker receives
 * fewer, larger jobs. A job's `receivedAt` (its events' `occurred_at`) is the time its first request was
 * accepted, at most `maxWaitMs` before the others.
 */
export class AnalyticsBatcher {
  private batches = new Map<number, Batch>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: BatcherDeps,
    private readonly options: BatcherOptions = DEFAULT_BATCHER_OPTIONS,
  ) {}

  /** Resolves once these rows are in the queue (rejects when their job could not be added). */
  add(storeId: number, rows: readonly EventRow[], now: Date): Promise<void> {
    let batch = this.batches.get(storeId);
    if (!batch) {
      batch = { storeId, receivedAt: now.toISOString(), rows: [], waiters: [] };
      this.batches.set(storeId, batch);
    }
    for (const row of rows) batch.rows.push(row);
    const done = new Promise<void>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    if (batch.rows.length >= this.options.maxEvents) {
      this.flush();
    } else {
      this.timer ??= setTimeout(() => this.flush(), this.options.maxWaitMs);
    }
    return done;
  }

  /** Adds every waiting batch now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batches = [...this.batches.values()];
    this.batches = new Map();
    if (batches.length === 0) return;
    const jobs = batches.map((batch) => ({ batch, jobId: `ev-${crypto.randomUUID()}` }));
    this.deps.queues.analytics
      .addBulk(
        jobs.map(({ batch, jobId }) => ({
          name: 'analytics',
          data: {
            storeId: batch.storeId,
            receivedAt: batch.receivedAt,
            events: batch.rows as unknown as Record<string, unknown>[],
          },
          opts: { jobId },
        })),
      )
      .then(
        () => {
          for (const { batch } of jobs) for (const waiter of batch.waiters) waiter.resolve();
        },
        async (err: unknown) => {
          // Answered as refused: should a job reach Redis after all, it writes nothing (the writer skips
          // the rows of abandoned jobs).
          await Promise.allSettled(
            jobs.map(({ jobId }) =>
              abandonJob(this.deps, 'analytics', this.deps.queues.analytics.jobIdFor(jobId)),
            ),
          );
          for (const { batch } of jobs) for (const waiter of batch.waiters) waiter.reject(err);
        },
      );
  }
}
