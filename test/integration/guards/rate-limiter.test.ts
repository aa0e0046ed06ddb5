import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { LIMITS, LimitDefinition } from '../../../shared/rate-limits';
import { createRedis, waitForRedis } from '../../../shared/redis';
import { LimitState, RateLimiter } from '../../../shared/services/rate-limiter';
import { TEST_QUEUE_PREFIX, testRedisUrl } from '../../helpers/env';
import { monitorRedis } from '../../helpers/redis-monitor';

const bucket = (name: string, points: number, durationSeconds = 60): LimitDefinition =>
  Object.freeze({ name, points, durationSeconds, scope: 'ip' as const });

/**
 * The limiter itself, on real Redis connections of the kind the web process uses ('general'), each test
 * on its own key prefix. The HTTP side (headers, 429 and 503 answers) is in rate-limit.test.ts.
 */
describe('rate limiter: every bucket of a request in one Redis call', () => {
  const connections: Redis[] = [];
  const connect = async (): Promise<Redis> => {
    // A URL gives a plain client (MONITOR below is a single-node command).
    const redis = createRedis(testRedisUrl, 'general', 'test:rate-limiter') as Redis;
    connections.push(redis);
    await waitForRedis(redis, testRedisUrl);
    return redis;
  };
  const limiterOn = (redis: Redis, prefix: string): RateLimiter =>
    new RateLimiter(redis, { prefix, windowScale: 1, enabled: true });
  let prefix: string;

  beforeEach(() => {
    prefix = `${TEST_QUEUE_PREFIX}_rl${crypto.randomBytes(3).toString('hex')}`;
  });
  after(() => Promise.all(connections.map((c) => c.quit())));

  it('admits exactly 50 of 200 simultaneous consumes from two processes sharing a bucket of 50', async () => {
    // Two limiters on two connections, as two web processes would be.
    const [a, b] = [limiterOn(await connect(), prefix), limiterOn(await connect(), prefix)];
    const def = bucket('exact', 50);
    const states = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).consume([{ def, key: '198.51.100.7' }])),
    );
    const admitted = states.map(([s]) => s).filter((s) => !s.exceeded);
    expect(admitted).to.have.length(50);
    // Each admitted consume saw its own count: remaining 49 down to 0, each exactly once.
    expect(admitted.map((s) => s.remaining).sort((x, y) => x - y)).to.deep.equal(
      Array.from({ length: 50 }, (_, i) => i),
    );
    // Denied consumes still count (as with rate-limiter-flexible), and every one says when it reopens.
    const redis = connections[0];
    expect(await redis.get(`${prefix}:{rl}:exact:198.51.100.7`)).to.equal('200');
    for (const [s] of states.filter(([s]) => s.exceeded)) {
      expect(s).to.include({ limit: 50, remaining: 0 });
      expect(s.resetSeconds).to.be.within(1, 60);
    }
  });

  it('counts a request denied by one window in the other windows too', async () => {
    const limiter = limiterOn(await connect(), prefix);
    const minute = bucket('multi_min', 3, 60);
    const hour = bucket('multi_hour', 10, 3600);
    const uses = [
      { def: minute, key: '203.0.113.9' },
      { def: hour, key: '203.0.113.9' },
    ];
    const results: LimitState[][] = [];
    for (let i = 0; i < 5; i += 1) results.push(await limiter.consume(uses));

    expect(results.map(([m]) => m.exceeded)).to.deep.equal([false, false, false, true, true]);
    expect(results.map(([, h]) => h.exceeded)).to.deep.equal([false, false, false, false, false]);
    // The hour window counted all five, the two the minute window refused included.
    expect(results.map(([, h]) => h.remaining)).to.deep.equal([9, 8, 7, 6, 5]);
    expect(results[4][0].resetSeconds).to.be.within(1, 60);
    expect(results[4][1].resetSeconds).to.be.within(61, 3600);

    // Each window expires on its own, from its first point.
    const redis = connections[0];
    expect(await redis.pttl(`${prefix}:{rl}:multi_min:203.0.113.9`)).to.be.within(1, 60_000);
    expect(await redis.pttl(`${prefix}:{rl}:multi_hour:203.0.113.9`)).to.be.within(60_001, 3_600_000);

    // A request's cost counts in every window at once.
    const [m, h] = await limiter.consume(uses.map((u) => ({ ...u, cost: 4 })));
    expect(m).to.include({ remaining: 0, exceeded: true });
    expect(h).to.include({ remaining: 1, exceeded: false });
  });

  it('consumes the four buckets of an embed request with one Redis command', async () => {
    const redis = await connect();
    const limiter = limiterOn(redis, prefix);
    const uses = [
      { def: LIMITS.embedPerIpMinute, key: '192.0.2.44' },
      { def: LIMITS.embedPerIpHour, key: '192.0.2.44' },
      { def: LIMITS.embedPerIpDay, key: '192.0.2.44' },
      { def: LIMITS.embedGlobalMinute, key: 'all' },
    ];
    // Once before watching: the first call on a fresh Redis may need EVAL after a NOSCRIPT.
    await limiter.consume(uses);

    // What the server received, read from MONITOR on a raw socket (test/helpers/redis-monitor.ts): only the
    // commands naming this test's own key prefix count, since other test processes share this Redis, and
    // commands a script runs show as from "lua" and are left out.
    const monitor = await monitorRedis(prefix);
    try {
      let states: LimitState[] = [];
      const seen = await monitor.commandsDuring(async () => {
        states = await limiter.consume(uses);
      });

      expect(states.map((s) => s.limit)).to.deep.equal([30, 200, 500, 5000]);
      expect(states.map((s) => s.remaining)).to.deep.equal([28, 198, 498, 4998]);
      expect(seen).to.have.length(1);
      const args = [...seen[0].matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
      const [command, , numberOfKeys, ...keys] = args;
      expect(command.toLowerCase()).to.equal('evalsha');
      expect(numberOfKeys).to.equal('4');
      // One hash tag for every key: a multi-key script on Redis Cluster needs them in one slot.
      expect(keys.slice(0, 4)).to.deep.equal([
        `${prefix}:{rl}:embed_ip_min:192.0.2.44`,
        `${prefix}:{rl}:embed_ip_hour:192.0.2.44`,
        `${prefix}:{rl}:embed_ip_day:192.0.2.44`,
        `${prefix}:{rl}:embed_global_min:all`,
      ]);
    } finally {
      monitor.close();
    }
  });
});
