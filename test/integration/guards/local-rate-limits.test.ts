import { expect } from 'chai';
import type { Redis } from 'ioredis';
import type { LimitDefinition } from '../../../shared/rate-limits';
import { createRedis, waitForRedis } from '../../../shared/redis';
import { LOCAL_BUCKETS_MAX, RateLimiter } from '../../../shared/services/rate-limiter';
import { TEST_QUEUE_PREFIX, testRedisUrl } from '../../helpers/env';

const def: LimitDefinition = Object.freeze({ name: 'local', points: 3, durationSeconds: 60, scope: 'ip' });

/**
 * The in-process buckets the cached reads fall back to while Redis is out (docs/outages.md, "Rate limits
 * during a Redis outage"): the same points and window, a fresh window once one ends, and a bounded number
 * of buckets. The HTTP side is in test/integration/outage/cached-read-limits.test.ts.
 */
describe('rate limiter: the in-process fallback buckets', () => {
  let redis: Redis;
  let limiter: RateLimiter;

  before(async () => {
    redis = createRedis(testRedisUrl, 'general', 'test:local-limits') as Redis;
    await waitForRedis(redis, testRedisUrl);
    limiter = new RateLimiter(redis, { prefix: `${TEST_QUEUE_PREFIX}_local`, windowScale: 1, enabled: true });
  });
  after(() => redis.quit());

  it('admits the limit’s points per window and key, then refuses until the window ends', () => {
    const t0 = 1_000_000;
    const states = Array.from({ length: 4 }, () => limiter.consumeLocally([{ def, key: 'a' }], t0)[0]);
    expect(states.map((s) => [s.remaining, s.exceeded])).to.deep.equal([
      [2, false],
      [1, false],
      [0, false],
      [0, true],
    ]);
    expect(states[3].resetSeconds).to.equal(60);
    expect(limiter.consumeLocally([{ def, key: 'b' }], t0)[0].exceeded).to.equal(false);
    expect(limiter.consumeLocally([{ def, key: 'a' }], t0 + 30_000)[0]).to.include({
      exceeded: true,
      resetSeconds: 30,
    });
    expect(limiter.consumeLocally([{ def, key: 'a' }], t0 + 60_000)[0]).to.include({
      remaining: 2,
      exceeded: false,
    });
  });

  it('keeps at most LOCAL_BUCKETS_MAX buckets, dropping the oldest', () => {
    const t0 = 5_000_000;
    limiter.consumeLocally([{ def, key: 'first', cost: 4 }], t0);
    for (let i = 0; i < LOCAL_BUCKETS_MAX; i += 1) limiter.consumeLocally([{ def, key: `k${i}` }], t0 + 1);
    // The oldest bucket was dropped to make room: its client starts a new window.
    expect(limiter.consumeLocally([{ def, key: 'first' }], t0 + 2)[0]).to.include({ exceeded: false });
    // The newest ones were kept.
    expect(
      limiter.consumeLocally([{ def, key: `k${LOCAL_BUCKETS_MAX - 1}`, cost: 3 }], t0 + 2)[0].exceeded,
    ).to.equal(true);
  });
});
