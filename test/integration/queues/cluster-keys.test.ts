import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { findOrInstallRedisServer } from '../../../scripts/lib/provision';
import type { Deps } from '../../../shared/deps';
import { bump, readStamp } from '../../../shared/cache/versioned';
import { bullPrefix, closeQueues, createQueues, enqueue, QUEUE_NAMES } from '../../../shared/queues';
import { LIMITS } from '../../../shared/rate-limits';
import { RateLimiter } from '../../../shared/services/rate-limiter';
import { deleteKeysWithPrefix } from '../../../shared/redis';
import { WorkerPool } from '../../../workers/worker-pool';
import { freePort } from '../../e2e/support';
import { isolatedDeps } from '../../helpers/deps';
import { waitFor } from './support';

/** CRC16-XMODEM (polynomial 0x1021, initial 0), the checksum Redis Cluster derives a key's slot from. */
function crc16(input: string): number {
  let crc = 0;
  for (const byte of Buffer.from(input)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The slot of a key as the Redis Cluster specification defines it: the CRC16 of the hash tag (the text
 * between the first `{` and the next `}`, when not empty), else of the whole key, modulo 16384.
 */
function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16384;
  }
  return crc16(key) % 16384;
}

async function keysUnder(deps: Deps, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await deps.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys.sort();
}

describe('Redis keys are Redis Cluster-safe', () => {
  it('computes slots as the Redis Cluster specification does', () => {
    // The specification's own check value, and its hash-tag examples.
    expect(crc16('123456789')).to.equal(0x31c3);
    expect(keySlot('{user1000}.following')).to.equal(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).to.equal(crc16('foo{}{bar}') % 16384);
    expect(keySlot('foo{{bar}}zap')).to.equal(crc16('{bar') % 16384);
  });

  it('derives the BullMQ prefix from QUEUE_PREFIX: the prefix first, then itself as the hash tag', () => {
    expect(bullPrefix('commerce')).to.equal('commerce:{commerce}');
    expect(bullPrefix('shop-2:eu')).to.equal('shop-2:eu:{shop-2:eu}');
    expect(() => bullPrefix('a{b}')).to.throw(/QUEUE_PREFIX/);
  });

  describe('every key the queues and workers write', () => {
    let deps: Deps;
    let pool: WorkerPool | undefined;

    before(async () => {
      deps = await isolatedDeps();
    });
    after(async () => {
      await pool?.close(0);
    });

    it('starts with QUEUE_PREFIX, carries the hash tag, and all of them map to one slot', async () => {
      const prefix = deps.config.queuePrefix;
      // Jobs in every state a queue has: waiting in every queue, delayed, prioritized, completed (with a
      // log line), failed; a worker's markers, locks and stalled-check keys on the way.
      pool = await WorkerPool.start(deps, {
        queues: ['analytics', 'licenses'],
        registry: {
          analytics: {
            concurrency: 2,
            async process(job) {
              await job.log('processed');
              return 'ok';
            },
          },
          licenses: {
            concurrency: 1,
            process() {
              return Promise.reject(new UnrecoverableError('refused on purpose'));
            },
          },
        },
      });
      await enqueue(deps.queues, 'analytics', { storeId: 1, receivedAt: 'x', events: [] });
      await enqueue(deps.queues, 'licenses', { kind: 'expire', before: 'x' }, { jobId: 'refused' });
      await waitFor('the jobs to complete and fail', async () => {
        const counts = await Promise.all([
          deps.queues.analytics.getJobCountByTypes('completed'),
          deps.queues.licenses.getJobCountByTypes('failed'),
        ]);
        return counts.every((n) => n === 1);
      });
      await pool.close(1_000);
      pool = undefined;
      for (const name of QUEUE_NAMES) {
        await deps.queues[name].add(name, {} as never, { delay: 60_000 });
        await deps.queues[name].add(name, {} as never, { priority: 2 });
        await deps.queues[name].add(name, {} as never);
      }

      const keys = await keysUnder(deps, prefix);
      const tagged = `${prefix}:{${prefix}}:`;
      for (const name of QUEUE_NAMES) {
        for (const suffix of ['wait', 'delayed', 'prioritized', 'meta', 'events', 'id'])
          expect(keys, `${name}:${suffix}`).to.include(`${tagged}${name}:${suffix}`);
      }
      expect(keys).to.include(`${tagged}analytics:completed`);
      expect(keys).to.include(`${tagged}licenses:failed`);
      expect(
        keys.some((k) => k.endsWith(':logs')),
        'a job log',
      ).to.equal(true);
      // Nothing else under the prefix: no key of the queues escaped the tag.
      expect(keys.filter((k) => !k.startsWith(tagged))).to.deep.equal([]);
      expect(new Set(keys.map(keySlot))).to.deep.equal(new Set([crc16(prefix) % 16384]));

      // Deleting by QUEUE_PREFIX (tests, the benchmark) still finds them all.
      expect(await deleteKeysWithPrefix(deps.redis, prefix)).to.equal(keys.length);
      expect(await keysUnder(deps, prefix)).to.deep.equal([]);
    });
  });

  /**
   * A redis-server of its own in cluster mode, one node owning every slot: a plain client reaches every key
   * (no redirections), and the server still refuses what a cluster refuses, a command or script touching
   * keys of different slots (CROSSSLOT). Installed through apt-get when missing, like the provisioning's.
   */
  describe('on a Redis in cluster mode', function () {
    this.timeout(60_000);
    let dir: string;
    let server: ChildProcess;
    let redis: Redis;
    const prefix = 'cluster_test';

    before(async () => {
      const binary = await findOrInstallRedisServer(process.env.PATH ?? '', () => undefined);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-'));
      const port = await freePort();
      server = spawn(
        binary,
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf')],
          ...['--dir', dir, '--daemonize', 'no'],
        ],
        { stdio: 'ignore' },
      );
      redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: null, lazyConnect: true });
      // Refused connections while it starts are expected; waitFor retries them.
      redis.on('error', () => undefined);
      await waitFor('redis-server to answer', () =>
        redis.connect().then(
          () => true,
          () => false,
        ),
      );
      await redis.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      await waitFor('the cluster to be ok', async () =>
        String(await redis.call('CLUSTER', 'INFO')).includes('cluster_state:ok'),
      );
    });
    after(async () => {
      redis?.disconnect();
      if (server && server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('takes the cache counters and the rate limits: each command stays in one slot', async () => {
      const deps = { redis, config: { queuePrefix: prefix } };
      const counters = ['license:v:all', 'pay:v:c:7', 'cat:v:s:3', 'cat:v:p:9'];
      expect(await readStamp(deps, counters)).to.equal('0.0.0.0');
      await bump(deps, counters);
      expect(await readStamp(deps, counters)).to.equal('1.1.1.1');
      const limiter = new RateLimiter(redis, { prefix, windowScale: 1, enabled: true });
      const states = await limiter.consume([
        { def: LIMITS.embedPerIpMinute, key: '10.0.0.1' },
        { def: LIMITS.embedPerIpHour, key: '10.0.0.1' },
        { def: LIMITS.embedGlobalMinute, key: 'all' },
      ]);
      expect(states.map((state) => state.remaining)).to.deep.equal([
        LIMITS.embedPerIpMinute.points - 1,
        LIMITS.embedPerIpHour.points - 1,
        LIMITS.embedGlobalMinute.points - 1,
      ]);
    });

    it('refuses the old layout: a queue whose keys are in different slots cannot add a job', async () => {
      const old = new Queue('fulfilment', { connection: redis, prefix });
      try {
        await old.add('fulfilment', { orderId: 1 }).then(
          () => expect.fail('added across slots'),
          (err: Error) => expect(err.message).to.match(/CROSSSLOT|same slot/),
        );
      } finally {
        await old.close();
      }
    });

    it('runs the queues with the hash-tagged prefix: add, delay, prioritize, process, fail, count', async () => {
      const queues = createQueues(redis, prefix, 'ns');
      const connection = redis.duplicate();
      const worker = new Worker(
        'licenses',
        async (job) => {
          if (job.data.kind === 'expire') throw new UnrecoverableError('refused on purpose');
          return 'ok';
        },
        { connection, prefix: bullPrefix(prefix) },
      );
      try {
        await enqueue(queues, 'licenses', { kind: 'generate', orderItemId: 1 }, { jobId: 'gen-1' });
        await enqueue(queues, 'licenses', { kind: 'expire', before: 'x' }, { jobId: 'exp-1' });
        await enqueue(queues, 'licenses', { kind: 'generate', orderItemId: 1 }, { jobId: 'gen-1' });
        await enqueue(queues, 'fivem', { orderId: 1 }, { delay: 60_000 });
        await enqueue(queues, 'otp', { otpSessionId: 1, codeVersion: 1, route: 'sms_only' }, { priority: 2 });
        await waitFor('one job completed and one failed', async () => {
          const counts = await queues.licenses.getJobCounts('completed', 'failed');
          return counts.completed === 1 && counts.failed === 1;
        });
        expect(await queues.fivem.getJobCounts('delayed')).to.deep.equal({ delayed: 1 });
        const next = await queues.otp.getJobs(['waiting', 'prioritized'], 0, 0, true);
        expect(next).to.have.length(1);
        await queues.licenses.retryJobs({ state: 'failed' });
        await waitFor(
          'the retried job to fail again',
          async () => (await queues.licenses.getJobCountByTypes('failed')) === 1,
        );
      } finally {
        await worker.close();
        connection.disconnect();
        await closeQueues(queues);
      }
    });
  });
});
