import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestResponse, type TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { monitorRedis, type RedisMonitor } from '../../helpers/redis-monitor';
import { insertLicense, licensedProduct, verify } from '../license/support';
import { hostedMethod, statusOf, waitFor } from '../payments/support';

/**
 * Redis round trips of the hot requests once their reads are cached (docs/performance.md), with rate
 * limits on, as deployed: counted with MONITOR. A request whose reads are cached sends the rate-limit
 * script and nothing else; the version counters are answered from memory (docs/caching.md "Counter
 * tracking").
 */
describe('hot requests: Redis commands per request on a cache hit', function () {
  this.timeout(30_000);
  let deps: Deps;
  let server: TestServer;
  let redis: RedisMonitor;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    redis = await monitorRedis(deps.config.queuePrefix);
    await waitFor('tracking', async () => deps.caches.counters!.isLive || undefined);
  });
  after(async () => {
    redis.close();
    await server.close();
  });

  /** The commands of the third request (the first two fill the caches). */
  async function commandsOf(send: () => Promise<TestResponse>, status = 200): Promise<string[]> {
    for (let i = 0; i < 2; i++) expect((await send()).status).to.equal(status);
    const commands = await redis.commandsDuring(async () => {
      const res = await send();
      expect(res.status, res.text).to.equal(status);
    });
    return commands.map((line) => /\] "([a-z]+)"/i.exec(line)?.[1]?.toLowerCase() ?? line);
  }

  it('payment status: the rate-limit script only', async () => {
    const store = await createStore();
    const product = await createProduct(store, { price_minor: 1_000, stock: 5 });
    await hostedMethod(deps, store, 'card', 'sandbox');
    const opened = await guestCheckout(server, store, { product_id: product.id });
    const commands = await commandsOf(() => statusOf(server, opened.checkoutUrl));
    expect(commands).to.deep.equal(['evalsha']);
  });

  it('license verify: the rate-limit script only', async () => {
    const store = await createStore();
    const product = await licensedProduct(store, deps.cipher);
    const license = await insertLicense(product);
    const commands = await commandsOf(() =>
      verify(server, { product_id: product.id, license_key: license.key }, { 'X-Forwarded-For': randomIp() }),
    );
    expect(commands).to.deep.equal(['evalsha']);
  });

  it('embed product: the rate-limit script only', async () => {
    const store = await createStore();
    const product = await createProduct(store, { price_minor: 1_000, stock: 5 });
    const commands = await commandsOf(() =>
      server.request(`/api/embed/product/${product.id}`, {
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      }),
    );
    expect(commands).to.deep.equal(['evalsha']);
  });

  it('analytics collect: the rate-limit script per request; the requests of a few ms share one queue add', async () => {
    const domain = `rt-${Date.now()}.example.test`;
    await createStore({ domains: [domain] });
    const collect = () =>
      server.request('/api/storefront/analytics/collect', {
        method: 'POST',
        json: { type: 'pageview', path: '/' },
        headers: {
          Host: domain,
          'X-Forwarded-For': randomIp(),
          'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)',
        },
      });
    for (let i = 0; i < 2; i++) expect((await collect()).status).to.equal(202);
    const commands = await redis.commandsDuring(async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, collect));
      for (const res of answers) expect(res.status, res.text).to.equal(202);
    });
    const limits = commands.filter((line) => line.includes(':{rl}:analytics_ip:'));
    const adds = commands.filter((line) => !limits.includes(line));
    expect(limits).to.have.length(20);
    // Each queue add is one script of its own; fewer adds than requests, and every event is in a job.
    expect(adds.length).to.be.within(1, 19);
    for (const line of adds) expect(line).to.match(/"evalsha" .*:analytics:/);
    const jobs = await deps.queues.analytics.getJobs(['waiting']);
    expect(jobs).to.have.length(2 + adds.length);
    expect(jobs.reduce((sum, job) => sum + job.data.events.length, 0)).to.equal(22);
  });

  it('auth/start: four Redis scripts, seven Postgres statements (two of them at once)', async () => {
    const store = await createStore();
    const product = await createProduct(store, { price_minor: 1_000, stock: 5 });
    let phone = 5_500_000;
    const start = () =>
      server.request('/api/embed/auth/start', {
        method: 'POST',
        json: {
          product_id: product.id,
          country_code: '966',
          phone: `55${String((phone += 1) % 10_000_000).padStart(7, '0')}`,
        },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      });
    expect((await start()).status).to.equal(200);
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    deps.knex.on('query', onQuery);
    const commands = await redis.commandsDuring(async () => {
      const res = await start();
      expect(res.status, res.text).to.equal(200);
    });
    deps.knex.off('query', onQuery);
    // Redis: the Embed guards' limits, both start limits in one script, the store's message budget, the
    // send job (before: the two start limits were two round trips).
    expect(commands).to.have.length(4);
    expect(commands.filter((line) => line.includes(':otp_start_'))).to.have.length(1);
    expect(commands.find((line) => line.includes(':otp_start_ip:'))).to.include(':otp_start_phone:');
    // Postgres: product and blocked phone read at once, the session inserted RETURNING its row (not read
    // again), its send job staged in the same transaction and removed from the outbox once enqueued.
    expect(statements).to.have.length(7);
    expect(statements.filter((sql) => /^select "otp_sessions"/.test(sql))).to.deep.equal([]);
  });
});
