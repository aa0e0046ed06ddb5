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
});
