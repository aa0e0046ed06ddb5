import { expect } from 'chai';
import knexFactory from 'knex';
import { Job, UnrecoverableError } from 'bullmq';
import { createAnalyticsProcessor } from '../../../workers/processors/analytics';
import type { JobOf } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { waitFor } from '../queues/support';
import { call, createShop, ShopStore, useStorefrontSuite } from './support';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

interface Row {
  type: string;
  path: string | null;
  event_name: string | null;
  properties: Record<string, unknown> | null;
  referrer_host: string | null;
  visitor_hash: string;
  device_class: string;
  ingest_key: string;
}

/** Spec: Analytics collection, Events, Analytics errors, the analytics limits; the buffered writer. */
describe('Storefront analytics collection', function () {
  this.timeout(60_000);
  const suite = useStorefrontSuite();
  let shop: ShopStore;
  let pool: WorkerPool | null = null;

  beforeEach(async () => {
    shop = await createShop();
  });
  afterEach(async () => {
    await pool?.close(1_000);
    pool = null;
  });

  const startWriter = async (maxWaitMs = 100) => {
    pool = await WorkerPool.start(suite.deps, {
      registry: { analytics: createAnalyticsProcessor({ maxEvents: 500, maxWaitMs }) },
      queues: ['analytics'],
    });
    return pool;
  };
  const rows = async (): Promise<Row[]> =>
    suite.deps.knex('analytics_events').where('store_id', shop.store.id).orderBy('id');
  const collect = (json: unknown, opts: { ip?: string; ua?: string } = {}) =>
    call(suite, shop, '/api/storefront/analytics/collect', {
      json,
      ip: opts.ip,
      headers: { 'User-Agent': opts.ua ?? DESKTOP },
    });
  const batch = (json: unknown, opts: { ip?: string; ua?: string } = {}) =>
    call(suite, shop, '/api/storefront/analytics/collect/batch', {
      json,
      ip: opts.ip,
      headers: { 'User-Agent': opts.ua ?? DESKTOP },
    });

  it('answers 202 {"status":"ok"} and records what an analytics product needs, without the IP', async () => {
    await startWriter();
    const ip = '10.77.1.2';
    const single = await collect(
      {
        type: 'pageview',
        path: '/games',
        title: 'Games',
        referrer: 'https://www.Google.com/search?q=x',
        screen_width: 390,
      },
      { ip, ua: IPHONE },
    );
    expect(single.status).to.equal(202);
    expect(single.body).to.deep.equal({ status: 'ok' });
    const many = await batch(
      {
        events: [
          { event_name: 'add_to_cart', properties: { product_id: 10 } },
          { type: 'outbound_click', destination: 'https://partner.example/', text: 'Partner' },
        ],
      },
      { ip, ua: IPHONE },
    );
    expect(many.status).to.equal(202);
    expect(many.body).to.deep.equal({ status: 'ok', processed: 2 });

    const stored = await waitFor('three rows', async () => {
      const all = await rows();
      return all.length === 3 ? all : undefined;
    });
    expect(stored.map((r) => r.type)).to.have.members(['pageview', 'event', 'outbound_click']);
    const pageview = stored.find((r) => r.type === 'pageview')!;
    expect(pageview).to.include({ path: '/games', referrer_host: 'www.google.com', device_class: 'mobile' });
    expect(stored.find((r) => r.type === 'event')).to.deep.include({
      event_name: 'add_to_cart',
      properties: { product_id: 10 },
    });
    // One visitor (same IP and browser, same day): one hash, not the IP in any form.
    expect(new Set(stored.map((r) => r.visitor_hash)).size).to.equal(1);
    expect(pageview.visitor_hash).to.match(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).to.not.contain(ip);
    // Another address is another visitor.
    await collect({ type: 'pageview', path: '/' }, { ip: '10.77.1.3', ua: DESKTOP });
    const fourth = await waitFor('a fourth row', async () =>
      (await rows()).length === 4 ? await rows() : undefined,
    );
    expect(fourth[3]!.visitor_hash).to.not.equal(pageview.visitor_hash);
    expect(fourth[3]!.device_class).to.equal('desktop');
  });

  it('keeps 30 events of a batch, accepts the four skipped types without recording them, and drops bots', async () => {
    await startWriter();
    const events = Array.from({ length: 35 }, (_, i) => ({ event_name: `e${i}` }));
    const res = await batch({ events });
    expect(res.body).to.deep.equal({ status: 'ok', processed: 30 });
    const skipped = await batch({
      events: ['web_vital', 'js_error', 'time_on_page', 'scroll_depth'].map((type) => ({ type })),
    });
    expect(skipped.status).to.equal(202);
    expect(skipped.body).to.deep.equal({ status: 'ok', processed: 4 });
    expect((await collect({ type: 'js_error' })).status).to.equal(202);
    const bot = await collect(
      { type: 'pageview', path: '/bot' },
      { ua: 'Googlebot/2.1 (+http://www.google.com/bot.html)' },
    );
    expect(bot.body).to.deep.equal({ status: 'ok' });
    // A last event to know the queue has been worked through.
    await collect({ event_name: 'last' });
    const stored = await waitFor('31 rows', async () => {
      const all = await rows();
      return all.length >= 31 ? all : undefined;
    });
    expect(stored).to.have.length(31);
    expect(stored.map((r) => r.event_name).sort()).to.deep.equal(
      [...Array.from({ length: 30 }, (_, i) => `e${i}`), 'last'].sort(),
    );
    expect(stored.some((r) => r.path === '/bot')).to.equal(false);
  });

  it('enforces every field’s length limit (422) and accepts values at the limit', async () => {
    const limits: [string, number][] = [
      ['session_id', 64],
      ['visitor_id', 64],
      ['url', 2000],
      ['path', 500],
      ['event_name', 100],
      ['title', 500],
      ['referrer', 2000],
      ['destination', 2000],
      ['text', 200],
    ];
    for (const [field, max] of limits) {
      const atLimit = await collect({ [field]: 'x'.repeat(max) });
      expect(atLimit.status, `${field} at ${max}`).to.equal(202);
      const over = await collect({ [field]: 'x'.repeat(max + 1) });
      expect(over.status, `${field} over ${max}`).to.equal(422);
      expect(over.body.errors).to.have.property(field);
      const inBatch = await batch({ events: [{ [field]: 'x'.repeat(max + 1) }] });
      expect(inBatch.status).to.equal(422);
    }
    for (const json of [{ screen_width: 'wide' }, { properties: 'x' }, { type: 7 }]) {
      expect((await collect(json)).status, JSON.stringify(json)).to.equal(422);
    }
  });

  it('takes properties of at most 2 KB serialized per event; a larger one is a 422 naming it', async () => {
    // {"k":"xxx…"} is 8 bytes around the value: 2040 characters make exactly 2048 bytes.
    const atLimit = { k: 'x'.repeat(2040) };
    expect(Buffer.byteLength(JSON.stringify(atLimit))).to.equal(2048);
    expect((await collect({ event_name: 'big', properties: atLimit })).status).to.equal(202);
    const over = await collect({ event_name: 'big', properties: { k: 'x'.repeat(2041) } });
    expect(over.status, over.text).to.equal(422);
    expect(over.body).to.include({
      error_code: 'validation_failed',
      doc_url: '/docs/errors.md#validation_failed',
    });
    expect(over.body.errors).to.have.property('properties');
    // Bytes, not characters: 1,000 Arabic letters are 2,000 bytes and more with the key.
    const arabic = await collect({ properties: { k: 'ع'.repeat(1_100) } });
    expect(arabic.status).to.equal(422);
    const inBatch = await batch({ events: [{ type: 'pageview' }, { properties: { k: 'x'.repeat(2041) } }] });
    expect(inBatch.status, inBatch.text).to.equal(422);
    expect(JSON.stringify(inBatch.body.errors)).to.include('properties');
  });

  it('answers 400 when the store cannot be resolved and when a batch is missing or empty', async () => {
    for (const path of ['/api/storefront/analytics/collect', '/api/storefront/analytics/collect/batch']) {
      const res = await suite.server.request(path, {
        method: 'POST',
        json: { events: [{ type: 'pageview' }] },
        headers: { Host: 'unknown.example.test', 'X-Forwarded-For': '10.78.0.1' },
      });
      expect(res.status, path).to.equal(400);
    }
    for (const json of [{}, { events: [] }, { events: null }, { events: 'x' }]) {
      const res = await batch(json);
      expect(res.status, JSON.stringify(json)).to.equal(400);
      expect(res.body.error_code, res.text).to.be.a('string');
      expect(res.body.doc_url).to.equal(`/docs/errors.md#${String(res.body.error_code)}`);
    }
  });

  it('allows 120 events a minute per IP, every event of a batch counting', async () => {
    const ip = '10.79.0.1';
    const thirty = { events: Array.from({ length: 30 }, () => ({ type: 'pageview' })) };
    for (let i = 0; i < 3; i += 1) expect((await batch(thirty, { ip })).status).to.equal(202);
    expect((await batch({ events: thirty.events.slice(0, 29) }, { ip })).status).to.equal(202);
    expect((await collect({ type: 'pageview' }, { ip })).status).to.equal(202);
    const over = await collect({ type: 'pageview' }, { ip });
    expect(over.status).to.equal(429);
    expect(over.body.message).to.be.a('string');
    expect((await batch(thirty, { ip })).status).to.equal(429);
    expect((await collect({ type: 'pageview' }, { ip: '10.79.0.2' })).status).to.equal(202);
  });

  it('writes a job run twice (a crash between commit and completion) once', async () => {
    const processor = createAnalyticsProcessor({ maxEvents: 500, maxWaitMs: 20 });
    const job = {
      id: 'ev-replayed',
      data: {
        storeId: shop.store.id,
        receivedAt: new Date().toISOString(),
        events: [
          { type: 'event', event_name: 'once', visitor_hash: 'h'.repeat(64), device_class: 'desktop' },
        ],
      },
    } as unknown as JobOf<'analytics'> & Job;
    await processor.process(job, suite.deps);
    await processor.process(job, suite.deps);
    expect((await rows()).map((r) => r.event_name)).to.deep.equal(['once']);
  });

  it('fails only the job whose store is gone, not the others of its batch', async () => {
    const processor = createAnalyticsProcessor({ maxEvents: 500, maxWaitMs: 50 });
    const jobOf = (id: string, storeId: number, name: string) =>
      ({
        id,
        data: {
          storeId,
          receivedAt: new Date().toISOString(),
          events: [{ type: 'event', event_name: name, visitor_hash: 'h'.repeat(64), device_class: 'mobile' }],
        },
      }) as unknown as JobOf<'analytics'> & Job;
    const [good, bad] = await Promise.allSettled([
      processor.process(jobOf('ev-good', shop.store.id, 'kept'), suite.deps),
      processor.process(jobOf('ev-bad', 2_000_000_000, 'lost'), suite.deps),
    ]);
    expect(good.status).to.equal('fulfilled');
    expect(bad.status).to.equal('rejected');
    expect((bad as PromiseRejectedResult).reason).to.be.instanceOf(UnrecoverableError);
    expect((await rows()).map((r) => r.event_name)).to.deep.equal(['kept']);
  });

  it('writes the rows when a job that failed (database down) is retried as the dashboard does', async () => {
    const quiet = () => undefined;
    const down = knexFactory({
      client: 'pg',
      connection: 'postgres://postgres@127.0.0.1:1/none',
      pool: { min: 0, max: 1 },
      acquireConnectionTimeout: 300,
      log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
    });
    const failing = createAnalyticsProcessor({ maxEvents: 500, maxWaitMs: 20 });
    try {
      // A database out of reach would be waited out (docs/outages.md); here the job must fail first.
      const config = {
        ...suite.deps.config,
        timeouts: { ...suite.deps.config.timeouts, transientDeferralLimitMs: 0 },
      };
      pool = await WorkerPool.start(
        { ...suite.deps, config },
        {
          registry: {
            analytics: {
              concurrency: 1,
              process: (job, deps) => failing.process(job, { ...deps, knex: down }),
            },
          },
          queues: ['analytics'],
        },
      );
      await suite.deps.queues.analytics.add(
        'analytics',
        {
          storeId: shop.store.id,
          receivedAt: new Date().toISOString(),
          events: [
            { type: 'event', event_name: 'retried', visitor_hash: 'h'.repeat(64), device_class: 'desktop' },
          ],
        },
        { jobId: 'ev-retry-me', attempts: 1 },
      );
      const failed = await waitFor('the job to fail', async () => {
        const job = await suite.deps.queues.analytics.getJob('ev-retry-me');
        return (await job?.getState()) === 'failed' ? job : undefined;
      });
      expect(await rows()).to.deep.equal([]);
      await pool.close(1_000);
      pool = null;

      await startWriter(20);
      await failed!.retry();
      await waitFor('the retried job to complete', async () => {
        const job = await suite.deps.queues.analytics.getJob('ev-retry-me');
        return (await job?.getState()) === 'completed' || undefined;
      });
      expect((await rows()).map((r) => [r.event_name, r.ingest_key])).to.deep.equal([
        ['retried', `${suite.deps.queues.analytics.jobIdFor('ev-retry-me')}:0`],
      ]);
    } finally {
      await down.destroy();
    }
  });

  // 10,000 events (334 batch requests of 30); the writer is stopped mid-burst with no grace,
  // its running jobs handed back, and a new one started.
  it('ends a 10,000-event burst through the API in exactly those rows, with the worker stopped in the middle', async () => {
    const TOTAL = 10_000;
    const events = Array.from({ length: TOTAL }, (_, n) => ({
      type: 'event',
      event_name: 'burst',
      properties: { n },
    }));
    const chunks: (typeof events)[] = [];
    for (let i = 0; i < TOTAL; i += 30) chunks.push(events.slice(i, i + 30));
    const send = async (part: (typeof events)[]) => {
      for (let i = 0; i < part.length; i += 8) {
        const answers = await Promise.all(part.slice(i, i + 8).map((c) => batch({ events: c })));
        for (const a of answers) expect(a.status, a.text).to.equal(202);
      }
    };

    await startWriter(300);
    const half = Math.floor(chunks.length / 2);
    await send(chunks.slice(0, half));
    await waitFor('some rows', async () => (await rows()).length > 0 || undefined);
    // No grace: jobs still waiting for their batch are handed back to the queue at once, while the rows
    // of that batch may still be committed: the run after the restart must not write them twice.
    await pool!.close(0);
    const atStop = (await rows()).length;
    pool = null;
    await send(chunks.slice(half));
    await startWriter(300);

    const stored = await waitFor(
      `${TOTAL} rows`,
      async () => {
        const all = await rows();
        return all.length >= TOTAL ? all : undefined;
      },
      60_000,
    );
    // Let anything still in flight land before counting for the last time.
    await new Promise((resolve) => setTimeout(resolve, 700));
    const final = await rows();
    expect(final).to.have.length(TOTAL);
    const seen = final.map((r) => Number(r.properties?.n)).sort((a, b) => a - b);
    expect(seen).to.deep.equal(Array.from({ length: TOTAL }, (_, n) => n));
    expect(new Set(final.map((r) => r.ingest_key)).size).to.equal(TOTAL);
    expect(stored.length).to.equal(TOTAL);
    expect(atStop).to.be.greaterThan(0).and.lessThan(TOTAL);
  });
});
