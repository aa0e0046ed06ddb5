import type { Knex } from 'knex';
import type { EventRow } from './index';

/**
 * Writes analytics events in batches: jobs hand their rows to `add`, which resolves once those rows are
 * committed. A batch is written when it holds `maxEvents` rows, when every job the worker may run is
 * waiting for it, when the queue has drained, or `maxWaitMs` after its first row, whichever comes first,
 * with one INSERT ... SELECT FROM unnest(...) per batch. Every row carries its ingest key
 * (`{job id}:{index}`), unique in the table with `occurred_at` (the partition key: the time the API
 * accepted the job, the same on every run), and a conflict is skipped: a job run again after a crash
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

export const DEFAULT_WRITER_OPTIONS: WriterOptions = { maxEvents: 10_000, maxWaitMs: 1_000 };

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

  /**
   * One statement per batch whatever its size: each column travels as one array parameter and
   * `unnest` turns the arrays back into rows, so Postgres parses and plans one short statement with 18
   * parameters instead of a multi-row VALUES list with 18 per row (knex built and Postgres parsed about
   * 18,000 placeholders per 1,000 rows).
   */
  private async insert(rows: readonly IngestRow[]): Promise<void> {
    const columns = INSERT_COLUMNS.map(([name]) => name);
    const arrays = INSERT_COLUMNS.map(([name]) =>
      rows.map((r) => {
        const value = r[name];
        if (name === 'properties') return value === null ? null : JSON.stringify(value);
        return value ?? null;
      }),
    );
    const selects = INSERT_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
    // Through the pool's own pg connection: knex would expand each array binding into a list of values.
    const client = this.knex.client as PoolClient;
    const connection = await client.acquireConnection();
    try {
      await connection.query(
        // The rows of a job whose request was refused (abandoned_jobs, shared/queues/outbox.ts) are
        // skipped: an ingest key is `<job id>:<index>`, and BullMQ job ids never hold ':'.
        `insert into analytics_events (${columns.join(', ')})
         select * from unnest(${selects}) as u(${columns.join(', ')})
          where not exists (
            select 1 from abandoned_jobs a where a.job_id = split_part(u.ingest_key, ':', 1))
         on conflict (ingest_key, occurred_at) do nothing`,
        arrays,
      );
    } finally {
      await client.releaseConnection(connection);
    }
  }
}

/** The part of knex's client the writer uses to run one statement on a pooled pg connection. */
interface PoolClient {
  acquireConnection(): Promise<{ query(sql: string, values: unknown[]): Promise<unknown> }>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/** The columns the writer fills, with the Postgres type each array parameter is cast to. */
const INSERT_COLUMNS: ReadonlyArray<readonly [keyof IngestRow, string]> = [
  ['store_id', 'int'],
  ['type', 'text'],
  ['session_id', 'text'],
  ['visitor_id', 'text'],
  ['url', 'text'],
  ['path', 'text'],
  ['event_name', 'text'],
  ['properties', 'jsonb'],
  ['title', 'text'],
  ['referrer', 'text'],
  ['referrer_host', 'text'],
  ['screen_width', 'int'],
  ['destination', 'text'],
  ['text', 'text'],
  ['visitor_hash', 'text'],
  ['device_class', 'text'],
  ['occurred_at', 'timestamptz'],
  ['ingest_key', 'text'],
];

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
