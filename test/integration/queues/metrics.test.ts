import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { readySince } from '../../../shared/metrics';
import { enqueue } from '../../../shared/queues';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text format: one sample per non-comment line. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`Unparsable metrics line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}

describe('GET /metrics', () => {
  let deps: Deps;
  let server: TestServer;

  before(async () => {
    deps = await isolatedDeps();
    server = await startServer(deps);
  });
  after(() => server.close());

  async function scrape(): Promise<Sample[]> {
    const res = await server.request('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parse(res.text);
  }

  it('counts requests by method, route pattern and status, never by raw path', async () => {
    await server.request('/healthz');
    await server.request('/healthz');
    await server.request('/__dev/outbox?to=966500000001');
    await server.request('/no/such/path/123');
    await server.request('/__dev/outbox?to=abc');

    const samples = await scrape();
    const total = (route: string, status: string): number | undefined =>
      value(samples, 'http_requests_total', { method: 'GET', route, status });
    expect(total('/healthz', '200')).to.equal(2);
    expect(total('/__dev/outbox', '200')).to.equal(1);
    expect(total('/__dev/outbox', '422')).to.equal(1);
    expect(total('unmatched', '404')).to.equal(1);
    expect(samples.some((s) => s.labels.route?.includes('123'))).to.equal(false);

    const buckets = samples.filter(
      (s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === '/healthz',
    );
    expect(buckets.length).to.be.greaterThan(5);
    expect(
      value(samples, 'http_request_duration_seconds_count', { route: '/healthz', status: '200' }),
    ).to.equal(2);
    expect(
      value(samples, 'http_request_duration_seconds_bucket', { route: '/healthz', le: '+Inf' }),
    ).to.equal(2);
  });

  it('reports the default process metrics', async () => {
    const samples = await scrape();
    expect(value(samples, 'process_cpu_user_seconds_total', {})).to.be.a('number');
    expect(value(samples, 'nodejs_heap_size_used_bytes', {})).to.be.greaterThan(0);
  });

  it('reports waiting, active, delayed and failed jobs per queue, read at scrape time', async () => {
    for (let i = 0; i < 3; i += 1)
      await enqueue(deps.queues, 'analytics', { storeId: 1, receivedAt: 'x', events: [] });
    await enqueue(deps.queues, 'analytics', { storeId: 1, receivedAt: 'x', events: [] }, { delay: 60_000 });
    await enqueue(
      deps.queues,
      'otp',
      { otpSessionId: 1, codeVersion: 1, route: 'sms_only' },
      { priority: 5 },
    );

    const samples = await scrape();
    const jobs = (queue: string, state: string): number | undefined =>
      value(samples, 'bullmq_queue_jobs', { queue, state });
    expect(jobs('analytics', 'waiting')).to.equal(3);
    expect(jobs('analytics', 'delayed')).to.equal(1);
    expect(jobs('analytics', 'active')).to.equal(0);
    expect(jobs('analytics', 'failed')).to.equal(0);
    expect(jobs('otp', 'waiting')).to.equal(1);
    expect(jobs('maintenance', 'waiting')).to.equal(0);
    expect(value(samples, 'bullmq_queue_up', { queue: 'analytics' })).to.equal(1);

    await deps.queues.analytics.drain();
    expect(value(await scrape(), 'bullmq_queue_jobs', { queue: 'analytics', state: 'waiting' })).to.equal(0);
  });

  it('reports the age of the job that has waited longest per queue, 0 when none waits', async () => {
    const now = Date.now();
    // Added 5 and 1 minutes ago (BullMQ's `timestamp` option), then one just now: the first waits longest.
    for (const ageMs of [300_000, 60_000, 0]) {
      await enqueue(deps.queues, 'licenses', { kind: 'expire', before: 'x' }, { timestamp: now - ageMs });
    }
    // A job added 10 minutes ago with a 9-minute delay has been ready for one minute only.
    await enqueue(
      deps.queues,
      'fivem',
      { orderId: 1 },
      { timestamp: now - 600_000, delay: 540_000, jobId: 'fivem-aged' },
    );
    await deps.queues.fivem.promoteJobs();
    // A prioritized job counts as waiting too.
    await enqueue(
      deps.queues,
      'otp',
      { otpSessionId: 2, codeVersion: 1, route: 'sms_only' },
      { priority: 3, timestamp: now - 120_000 },
    );

    const samples = await scrape();
    const age = (queue: string): number | undefined =>
      value(samples, 'bullmq_queue_oldest_waiting_seconds', { queue });
    // Lower bounds are exact; the upper ones only allow for the time the scrape itself took.
    expect(age('licenses')).to.be.at.least(300).and.below(360);
    expect(age('fivem')).to.be.at.least(60).and.below(120);
    expect(age('otp')).to.be.at.least(120).and.below(180);
    expect(age('maintenance')).to.equal(0);
    for (const queue of Object.keys(deps.queues)) expect(age(queue), queue).to.be.a('number');

    await Promise.all([deps.queues.licenses.drain(), deps.queues.fivem.drain(), deps.queues.otp.drain()]);
    expect(value(await scrape(), 'bullmq_queue_oldest_waiting_seconds', { queue: 'licenses' })).to.equal(0);
  });

  it('counts a retried job from its retry, not from when it was first added', () => {
    const opts = { backoff: { type: 'exponential', delay: 42_000 } };
    // Added at 0, third attempt started at 1,000,000 and failed; the fourth waits 4 × 42 s after it.
    expect(readySince({ timestamp: 0, processedOn: 1_000_000, attemptsMade: 3, opts })).to.equal(1_168_000);
    expect(
      readySince({ timestamp: 0, processedOn: undefined, attemptsMade: 0, opts: { delay: 5_000 } }),
    ).to.equal(5_000);
    // A stalled job (no failed attempt): from the start of the attempt it lost.
    expect(readySince({ timestamp: 0, processedOn: 7_000, attemptsMade: 0, opts })).to.equal(7_000);
    expect(
      readySince({ timestamp: 0, processedOn: 7_000, attemptsMade: 2, opts: { backoff: 1_000 } }),
    ).to.equal(8_000);
  });

  it('keeps a registry per app, so a second app starts from zero', async () => {
    const other = await startServer(deps);
    try {
      const res = await other.request('/metrics');
      expect(value(parse(res.text), 'http_requests_total', { route: '/healthz' })).to.equal(undefined);
    } finally {
      await other.close();
    }
  });
});
