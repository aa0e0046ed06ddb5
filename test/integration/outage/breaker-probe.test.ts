import { expect } from 'chai';
import { createDeps, Deps } from '../../../shared/deps';
import { testConfig } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { PrivateRedis } from '../../helpers/private-services';
import { sleep, waitFor } from '../queues/support';

const OPEN_MS = 300;

/**
 * While the Redis breaker lets its one probe through to a frozen Redis, every other request fails at once
 * with the 503 (docs/outages.md, "The web tier") instead of waiting behind the probe in ioredis's
 * auto-pipeline for the command timeout: each of them is answered before the probe is.
 */
describe('outages: requests do not wait behind the Redis breaker’s probe', function () {
  this.timeout(30_000);
  let redis: PrivateRedis;
  let deps: Deps;
  let server: TestServer;

  before(async () => {
    redis = await PrivateRedis.start({ fsync: 'everysec' });
    deps = await createDeps(
      testConfig({
        REDIS_URL: redis.url,
        QUEUE_PREFIX: 'breaker-probe',
        DEPENDENCY_TIMEOUT_MS: '1000',
        DEPENDENCY_BREAKER_OPEN_MS: String(OPEN_MS),
      }),
      { role: 'web', pool: { min: 0, max: 4 } },
    );
    server = await startServer(deps);
  });
  after(async () => {
    redis?.thaw();
    await server?.close();
    await deps?.close();
    await redis?.destroy();
  });

  /** A rate-limited route: its first step is one Redis command on the auto-pipelined connection. */
  const page = (): Promise<TestResponse> => server.request('/sandbox/checkout/sbx_unknown');

  function expectUnavailable(res: TestResponse): void {
    expect(res.status, res.text).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
  }

  it('answers the others with 503 before the probe’s own answer', async () => {
    // The first answer on a cold connection may itself take the timeout on a loaded machine: wait for a 404.
    await waitFor('a first answer from Redis', async () => (await page()).status === 404, 15_000, 100);
    redis.freeze();
    // The first request meets the timeout and opens the breaker.
    expectUnavailable(await page());
    expect(deps.breakers.redis.state).to.equal('open');
    await sleep(OPEN_MS + 100);

    const finished: string[] = [];
    const probe = page().then((res) => {
      finished.push('probe');
      return res;
    });
    await waitFor('the probe to be sent', async () => deps.breakers.redis.state === 'half-open', 5_000, 5);
    const others = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        page().then((res) => {
          finished.push(`other ${i}`);
          return res;
        }),
      ),
    );
    for (const res of others) expectUnavailable(res);
    expectUnavailable(await probe);
    expect(finished[finished.length - 1]).to.equal('probe');
    expect(finished).to.have.length(11);

    redis.thaw();
    await sleep(OPEN_MS + 100);
    await waitFor('Redis to answer again', async () => (await page()).status === 404, 10_000, 100);
  });
});
