import crypto from 'node:crypto';
import { expect } from 'chai';
import { bump, readStamp } from '../../../shared/cache/versioned';
import type { Deps } from '../../../shared/deps';
import { isolatedDeps } from '../../helpers/deps';
import { monitorRedis, type RedisMonitor } from '../../helpers/redis-monitor';
import { waitFor } from '../payments/support';

/**
 * The version counters answered from memory while Redis pushes their invalidations (TrackedCounters,
 * docs/caching.md "Counter tracking"): two Deps (two processes' worth of connections and caches) on one
 * prefix. Redis commands are counted with MONITOR.
 */
describe('hot reads: version counters tracked by Redis (client-side caching)', function () {
  this.timeout(30_000);
  let a: Deps;
  let b: Deps;
  let redis: RedisMonitor;

  before(async () => {
    a = await isolatedDeps();
    b = await isolatedDeps({ QUEUE_PREFIX: a.config.queuePrefix });
    redis = await monitorRedis(a.config.queuePrefix);
    await waitFor(
      'tracking on both',
      async () => (a.caches.counters!.isLive && b.caches.counters!.isLive) || undefined,
    );
  });
  after(() => redis.close());

  const counters = (): string[] => {
    const id = crypto.randomBytes(4).toString('hex');
    return [`test:v:all:${id}`, `test:v:one:${id}`];
  };

  it('a repeated read asks Redis nothing, and a bump on the other process is seen at the next read', async () => {
    const names = counters();
    expect(await readStamp(b, names)).to.equal('0.0');
    const hits = await redis.commandsDuring(async () => {
      for (let i = 0; i < 5; i++) expect(await readStamp(b, names)).to.equal('0.0');
    });
    expect(hits).to.deep.equal([]);

    await bump(a, [names[1]!]);
    expect(await readStamp(b, names)).to.equal('0.1');
    await bump(a, [names[0]!, names[1]!]);
    expect(await readStamp(b, names)).to.equal('1.2');
    expect(await redis.commandsDuring(async () => void (await readStamp(b, names)))).to.deep.equal([]);
  });

  it('a dropped tracking connection empties the counters: reads ask Redis until tracking is back', async () => {
    const names = counters();
    await readStamp(b, names);
    expect(b.caches.counters!.size).to.be.above(0);

    // Drop B's tracking connection and bump at once: the invalidation is lost with it.
    const tracking = await redis.clientIds(`${b.config.queuePrefix}:test:tracking`);
    expect(tracking.length).to.be.at.least(1);
    for (const id of tracking) await redis.kill(id);
    await bump(a, [names[0]!]);
    await waitFor('the drop noticed', async () => !b.caches.counters!.isLive || undefined);
    expect(b.caches.counters!.size).to.equal(0);

    const untracked = await redis.commandsDuring(async () => {
      expect(await readStamp(b, names)).to.equal('1.0');
    });
    expect(untracked).to.have.length(1);
    expect(untracked[0]).to.match(/"mget"/i);
    await waitFor('tracking back', async () => b.caches.counters!.isLive || undefined);
    // Live again: read once, then from memory, and a bump is seen.
    expect(await readStamp(b, names)).to.equal('1.0');
    expect(await redis.commandsDuring(async () => void (await readStamp(b, names)))).to.deep.equal([]);
    await bump(a, [names[1]!]);
    expect(await readStamp(b, names)).to.equal('1.1');
  });

  it('a read whose MGET races an invalidation keeps nothing', async () => {
    const names = counters();
    const reading = readStamp(b, names);
    await bump(a, [names[0]!]);
    await reading;
    // Whatever that MGET returned, the next read is the bumped value.
    expect(await readStamp(b, names)).to.equal('1.0');
  });
});
