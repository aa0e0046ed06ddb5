import crypto from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { bump, readStamp } from '../../../shared/cache/versioned';
import type { Deps } from '../../../shared/deps';
import { isolatedDeps } from '../../helpers/deps';
import { testRedisUrl } from '../../helpers/env';
import { waitFor } from '../payments/support';

/**
 * The version counters answered from memory while Redis pushes their invalidations (TrackedCounters,
 * docs/caching.md "Counter tracking"): two Deps (two processes' worth of connections and caches) on one
 * prefix. Redis commands are counted with MONITOR on a connection of the test's own.
 */
describe('hot reads: version counters tracked by Redis (client-side caching)', function () {
  this.timeout(30_000);
  let a: Deps;
  let b: Deps;
  let monitor: net.Socket;
  let admin: Redis;
  const seen: string[] = [];

  before(async () => {
    a = await isolatedDeps();
    b = await isolatedDeps({ QUEUE_PREFIX: a.config.queuePrefix });
    admin = new Redis(testRedisUrl);
    // MONITOR on a socket of its own: every command the server runs, one line each.
    const url = new URL(testRedisUrl);
    monitor = net.connect(Number(url.port || 6379), url.hostname);
    let pending = '';
    monitor.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\r\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.includes(`${a.config.queuePrefix}:{cache}:`)) seen.push(line);
    });
    monitor.write('MONITOR\r\n');
    await waitFor(
      'tracking on both',
      async () => (a.caches.counters!.isLive && b.caches.counters!.isLive) || undefined,
    );
  });
  after(async () => {
    monitor.destroy();
    admin.disconnect();
  });

  /** Waits until MONITOR has shown a command of the test's own (MONITOR lags behind the commands). */
  async function mark(): Promise<string> {
    const marker = `${a.config.queuePrefix}:{cache}:marker:${crypto.randomBytes(4).toString('hex')}`;
    await admin.get(marker);
    await waitFor(
      'the marker in MONITOR',
      async () => seen.some((line) => line.includes(marker)) || undefined,
    );
    return marker;
  }

  /** Redis commands naming a counter of this prefix sent while `fn` runs (between two markers). */
  async function commandsDuring(fn: () => Promise<void>): Promise<string[]> {
    await mark();
    seen.length = 0;
    await fn();
    const marker = await mark();
    return seen.filter((line) => !line.includes(marker));
  }

  const counters = (): string[] => {
    const id = crypto.randomBytes(4).toString('hex');
    return [`test:v:all:${id}`, `test:v:one:${id}`];
  };

  it('a repeated read asks Redis nothing, and a bump on the other process is seen at the next read', async () => {
    const names = counters();
    expect(await readStamp(b, names)).to.equal('0.0');
    const hits = await commandsDuring(async () => {
      for (let i = 0; i < 5; i++) expect(await readStamp(b, names)).to.equal('0.0');
    });
    expect(hits).to.deep.equal([]);

    await bump(a, [names[1]!]);
    expect(await readStamp(b, names)).to.equal('0.1');
    await bump(a, [names[0]!, names[1]!]);
    expect(await readStamp(b, names)).to.equal('1.2');
    const after = await commandsDuring(async () => void (await readStamp(b, names)));
    expect(after).to.deep.equal([]);
  });

  it('a dropped tracking connection empties the counters: reads ask Redis until tracking is back', async () => {
    const names = counters();
    await readStamp(b, names);
    expect(b.caches.counters!.size).to.be.above(0);

    // Kill B's tracking connection (its name ends in :tracking) and bump at once: the invalidation is lost.
    const clients = (await admin.client('LIST')) as string;
    const tracking = clients
      .split('\n')
      .filter((line) => line.includes(`name=${b.config.queuePrefix}:`) && line.includes(':tracking '))
      .map((line) => /id=(\d+)/.exec(line)![1]!);
    expect(tracking.length).to.be.at.least(1);
    for (const id of tracking) await admin.client('KILL', 'ID', id);
    await bump(a, [names[0]!]);
    await waitFor('the drop noticed', async () => !b.caches.counters!.isLive || undefined);
    expect(b.caches.counters!.size).to.equal(0);

    expect(await readStamp(b, names)).to.equal('1.0');
    await waitFor('tracking back', async () => b.caches.counters!.isLive || undefined);
    // Live again: read once, then from memory, and a bump is seen.
    expect(await readStamp(b, names)).to.equal('1.0');
    expect(await commandsDuring(async () => void (await readStamp(b, names)))).to.deep.equal([]);
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
