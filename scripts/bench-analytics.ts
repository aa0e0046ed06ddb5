import { ChildProcess, spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { from as copyFrom } from 'pg-copy-streams';
import pg from 'pg';

/**
 * The analytics half of `npm run bench`: how fast collected events reach Postgres through the API, the
 * analytics queue and its batching writer (workers/processors/analytics.ts), beside a raw COPY of the
 * same rows into a copy of the table in the same run, the fastest way Postgres takes rows.
 */

export interface IngestResult {
  events: number;
  /** Events written per second by the worker, from its start until the last row is in. */
  ingestPerSecond: number;
  /** The same rows through COPY FROM STDIN, rows per second. */
  copyPerSecond: number;
}

const EVENT = (n: number) => ({
  type: 'pageview',
  url: `https://demo.localhost/p/${n % 50}`,
  path: `/p/${n % 50}`,
  title: 'Bench page',
  referrer: 'https://search.example/q',
  screen_width: 1280,
});

/** A batch of 30 collect events, the largest the spec keeps. */
export const batchBody = (start = 0): string =>
  JSON.stringify({ events: Array.from({ length: 30 }, (_, i) => EVENT(start + i)) });

export const singleBody = (): string => JSON.stringify(EVENT(1));

async function countRows(knex: knexFactory.Knex, table: string): Promise<number> {
  const [{ n }] = await knex(table).count<{ n: string }[]>({ n: '*' });
  return Number(n);
}

/**
 * Starts a worker process for the analytics queue and waits for it to be ready while the queue is paused,
 * sends `events` events through POST /api/storefront/analytics/collect/batch, then resumes the queue and
 * times the worker until every row is written: the figure is the writer's, not the process start's. Then
 * COPYs the rows it wrote into a scratch table of the same shape and times that.
 */
export async function measureIngest(opts: {
  base: string;
  host: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  databaseUrl: string;
  events: number;
  /** The analytics queue, paused while the events are sent and resumed to start the clock. */
  queue: { pause(): Promise<void>; resume(): Promise<void> };
  say: (line: string) => void;
  /** Analytics worker processes sharing the queue (1 by default). */
  workers?: number;
}): Promise<IngestResult> {
  const requests = Math.ceil(opts.events / 30);
  const events = requests * 30;
  await opts.queue.pause();
  const knex = knexFactory({ client: 'pg', connection: opts.databaseUrl, pool: { min: 0, max: 2 } });
  // Rows already in the table (an earlier measure of the same run) are not this measure's.
  const before = await countRows(knex, 'analytics_events');
  const workers = Array.from({ length: opts.workers ?? 1 }, () =>
    spawn(process.execPath, ['dist/workers/index.js'], {
      cwd: opts.cwd,
      env: { ...opts.env, WORKER_QUEUES: 'analytics', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  try {
    await Promise.all(workers.map((worker) => workerReady(worker)));
    const sent = await autocannon({
      url: `${opts.base}/api/storefront/analytics/collect/batch`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        host: opts.host,
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)',
      },
      body: batchBody(),
      connections: 10,
      amount: requests,
      pipelining: 1,
    });
    const accepted = sent.statusCodeStats?.['202']?.count ?? 0;
    if (accepted !== requests) throw new Error(`ingest: ${accepted} of ${requests} batches were accepted`);

    const started = Date.now();
    await opts.queue.resume();
    let written = 0;
    const deadline = started + 300_000;
    while (written < events) {
      if (Date.now() > deadline) throw new Error(`ingest: ${written} of ${events} rows after 300 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      written = (await countRows(knex, 'analytics_events')) - before;
    }
    const seconds = (Date.now() - started) / 1000;
    opts.say(
      `bench: ingest: ${events} events written in ${seconds.toFixed(2)} s by ${workers.length} running worker(s)`,
    );

    await knex.raw('drop table if exists bench_copy_events');
    await knex.raw('create table bench_copy_events (like analytics_events including all)');
    const columns = [
      'store_id',
      'type',
      'url',
      'path',
      'title',
      'referrer',
      'referrer_host',
      'screen_width',
      'visitor_hash',
      'device_class',
      'occurred_at',
      'ingest_key',
    ];
    const rows = await knex('analytics_events').select(columns).orderBy('id', 'desc').limit(events);
    const csv = rows.map((r: Record<string, unknown>) =>
      columns
        .map((c) => {
          const v = r[c];
          if (v === null || v === undefined) return '';
          const text = v instanceof Date ? v.toISOString() : String(v);
          return `"${text.replace(/"/g, '""')}"`;
        })
        .join(','),
    );
    const client = new pg.Client({ connectionString: opts.databaseUrl });
    await client.connect();
    let copySeconds: number;
    try {
      const copyStarted = Date.now();
      await pipeline(
        Readable.from(csv.map((line) => `${line}\n`)),
        client.query(copyFrom(`copy bench_copy_events (${columns.join(', ')}) from stdin with (format csv)`)),
      );
      copySeconds = (Date.now() - copyStarted) / 1000;
    } finally {
      await client.end();
    }
    const copied = await countRows(knex, 'bench_copy_events');
    if (copied !== events) throw new Error(`copy: ${copied} of ${events} rows`);
    await knex.raw('drop table bench_copy_events');
    return {
      events,
      ingestPerSecond: events / seconds,
      copyPerSecond: events / Math.max(copySeconds, 0.001),
    };
  } finally {
    await Promise.all(
      workers.map(async (worker) => {
        if (worker.exitCode !== null || worker.signalCode !== null) return;
        worker.kill('SIGTERM');
        await new Promise((resolve) => worker.once('exit', resolve));
      }),
    );
    await knex.destroy();
  }
}

/** Resolves when a worker process prints that it is ready; rejects if it exits or takes over 60 s. */
function workerReady(worker: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('ingest: the worker was not ready in 60 s')), 60_000);
    worker.stdout!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4096);
      if (seen.includes('worker ready')) {
        clearTimeout(timer);
        worker.stdout!.resume();
        resolve();
      }
    });
    worker.once('exit', (code) => reject(new Error(`ingest: the worker exited (${code})`)));
  });
}
