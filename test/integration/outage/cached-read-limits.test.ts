import { expect } from 'chai';
import { Model } from 'objection';
import type { Product, Store } from '../../../db/models';
import { createDeps, Deps } from '../../../shared/deps';
import { LIMITS } from '../../../shared/rate-limits';
import { createProduct, createStore } from '../../helpers/builders';
import { testConfig } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { PrivateRedis } from '../../helpers/private-services';

/**
 * Redis out of reach (docs/outages.md, "Rate limits during a Redis outage"): the cached reads (the embed
 * product, the payment status) answer from Postgres, their limits counted in the web process's memory
 * (the same points and windows, a 429 once spent); every other rate-limited route still answers 503.
 */
describe('outages: rate limits of cached reads with Redis stopped', function () {
  this.timeout(30_000);
  let redis: PrivateRedis;
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let previousKnex: ReturnType<typeof Model.knex>;

  before(async () => {
    redis = await PrivateRedis.start({ fsync: 'everysec' });
    deps = await createDeps(
      testConfig({ REDIS_URL: redis.url, QUEUE_PREFIX: 'cached-read-limits', TRUST_PROXY: '1' }),
      { role: 'web', pool: { min: 0, max: 4 } },
    );
    previousKnex = Model.knex();
    Model.knex(deps.knex);
    server = await startServer(deps);
    store = await createStore({ name: 'Limits Store' });
    product = await createProduct(store, { name: 'Key', type: 'code', price_minor: 1_000 });
    await deps.knex('product_codes').insert({ product_id: product.id, code: `LIM-${store.id}` });
  });
  after(async () => {
    await server?.close();
    await deps?.close();
    Model.knex(previousKnex);
    await redis?.destroy();
  });

  const embed = (path: string, ip: string, json?: unknown): Promise<TestResponse> =>
    server.request(path, {
      method: json === undefined ? 'GET' : 'POST',
      json,
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': ip },
    });

  it('answers the embed product from Postgres within its limit, then 429; other routes 503', async () => {
    await redis.stop();
    const points = LIMITS.embedPerIpMinute.points;
    for (let i = 0; i < points; i += 1) {
      const res = await embed(`/api/embed/product/${product.id}`, '203.0.113.7');
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('x-ratelimit-remaining')).to.equal(String(points - 1 - i));
      // Every answer is checked against the OpenAPI document by the test client (test/helpers/http.ts).
      if (i === 0) expect(res.body).to.have.nested.property('data.id', product.id);
    }
    const refused = await embed(`/api/embed/product/${product.id}`, '203.0.113.7');
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^\d+$/);

    // Another client has its own bucket; the payment status is a cached read too.
    expect((await embed(`/api/embed/product/${product.id}`, '203.0.113.8')).status).to.equal(200);
    const status = await embed('/api/embed/payment/status/unknown-checkout', '203.0.113.9');
    expect(status.status, status.text).to.equal(404);

    // A route that is not a cached read is not metered by the process: 503 with Retry-After.
    const start = await embed('/api/embed/auth/start', '203.0.113.10', {
      product_id: product.id,
      country_code: '+966',
      phone: '500000901',
    });
    expect(start.status, start.text).to.equal(503);
    expect(start.headers.get('retry-after')).to.match(/^\d+$/);
  });
});
