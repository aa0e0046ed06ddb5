import type { Knex } from 'knex';
import type { EventRow } from './index';

/**
 * Writes analytics events in batches: jobs hand their rows to `add`, which resolves once those rows are
 * committed. A batch is written when it holds `maxEvents` rows or `maxWaitMs` after its first row,
 * whichever comes first, with one multi-row INSERT per chunk. Every row carries its ingest key
 * (`{job id}:{index}`), unique in the table, and a conflict is skipped: a job run again after a crash
 * between the commit and its completion writes nothing twice, and a job whose batch failed is retried
 * whole.
 */

export interface WriterOptions {
  /** Rows that trigger a write at once. */
  maxEvents: number;
  /** Longest a row waits for its batch to fill. */
  maxWaitMs: number;
  /**
   * Callers that trigger a write at once: the worker's concurrency. When every job the worker may run is
   * waiting here, no row can arrive before a write, so waiting out `maxWaitMs` would only idle.
   */
  maxCallers?: number;
}

export const DEFAULT_WRITER_OPTIONS: WriterOptions = { maxEvents: 1_000, maxWaitMs: 1_000 };

/** Postgres takes at most 65,535 bind parameters per statement; 19 columns × 1,000 rows stays below. */
const ROWS_PER_STATEMENT = 1_000;

export interface IngestRow extends EventRow {
  ingest_key: string;
  store_id: number;
  occurred_at: string;
}

interface Pending {
  rows: IngestRow[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class AnalyticsWriter {
  private pending: Pending[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Rows committed by this writer (inserted or already there). */
  written = 0;

  constructor(
    private readonly knex: Knex,
    private readonly options: WriterOptions = DEFAULT_WRITER_OPTIONS,
  ) {}

  add(rows: IngestRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      this.pending.push({ rows, resolve, reject });
    });
    this.size += rows.length;
    const full =
      this.size >= this.options.maxEvents || this.pending.length >= (this.options.maxCallers ?? Infinity);
    if (full) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxWaitMs);
    return done;
  }

  /** Writes what is waiting now; callers of `add` learn the outcome through their own promise. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    this.size = 0;
    if (batch.length === 0) return;
    try {
      await this.insert(batch.flatMap((p) => p.rows));
      this.written += batch.reduce((n, p) => n + p.rows.length, 0);
      for (const p of batch) p.resolve();
    } catch {
      // One bad job (its store deleted meanwhile, say) must not fail the others of its batch: each job's
      // rows are written on their own, and only the jobs that still fail are retried.
      for (const p of batch) {
        try {
          await this.insert(p.rows);
          this.written += p.rows.length;
          p.resolve();
        } catch (err) {
          p.reject(err);
        }
      }
    }
  }

  private async insert(rows: readonly IngestRow[]): Promise<void> {
    await this.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
        await trx('analytics_events')
          .insert(
            rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({
              ...r,
              properties: r.properties === null ? null : JSON.stringify(r.properties),
            })),
          )
          .onConflict('ingest_key')
          .ignore();
      }
    });
  }
}

/** The rows of one analytics job, each with its ingest key. */
export function ingestRows(
  jobId: string,
  storeId: number,
  receivedAt: string,
  events: readonly EventRow[],
): IngestRow[] {
  return events.map((e, index) => ({
    ...e,
    ingest_key: `${jobId}:${index}`,
    store_id: storeId,
    occurred_at: receivedAt,
  }));
}
