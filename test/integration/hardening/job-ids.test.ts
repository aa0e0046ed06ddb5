import crypto from 'node:crypto';
import { Worker } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import knexFactory, { Knex } from 'knex';
import { createDeps, Deps } from '../../../shared/deps';
import { bullPrefix, enqueue } from '../../../shared/queues';
import { deleteKeysWithPrefix } from '../../../shared/redis';
import { testConfig } from '../../helpers/deps';
import { TEST_QUEUE_PREFIX, testDatabaseUrl } from '../../helpers/env';

/**
 * Deterministic job ids are unique to the row they serve across databases. A database
 * created afresh beside an old Redis (same QUEUE_PREFIX) starts its ids at 1 again; its jobs must not be
 * taken for the old database's jobs of the same name, which BullMQ would silently skip.
 */
describe('job ids carry the database’s own id', function () {
  this.timeout(60_000);
  const prefix = `${TEST_QUEUE_PREFIX}_jobids`;
  const freshName = `${new URL(testDatabaseUrl).pathname.slice(1)}_fresh_${crypto.randomBytes(2).toString('hex')}`;
  const freshUrl = Object.assign(new URL(testDatabaseUrl), { pathname: `/${freshName}` }).toString();
  let admin: Knex;
  let old: Deps;
  let fresh: Deps;

  before(async () => {
    admin = knexFactory({
      client: 'pg',
      connection: Object.assign(new URL(testDatabaseUrl), { pathname: '/postgres' }).toString(),
      pool: { min: 0, max: 1 },
    });
    await admin.raw(`create database "${freshName}"`);
    // A fresh database needs only its settings table here (createDeps reads it); the full migration
    // would cost half a minute on a busy machine and prove nothing more.
    const fresher = knexFactory({ client: 'pg', connection: freshUrl, pool: { min: 0, max: 1 } });
    await fresher.schema.createTable('platform_settings', (t) => {
      t.string('key', 100).primary();
      t.text('value').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(fresher.fn.now());
    });
    await fresher.destroy();
    old = await createDeps(testConfig({ QUEUE_PREFIX: prefix }), { role: 'test', pool: { min: 0, max: 2 } });
    fresh = await createDeps(testConfig({ QUEUE_PREFIX: prefix, DATABASE_URL: freshUrl }), {
      role: 'test',
      pool: { min: 0, max: 2 },
    });
  });
  after(async () => {
    await old?.close();
    await fresh?.close();
    await deleteKeysWithPrefix(old.redis, prefix).catch(() => undefined);
    await admin.raw(`drop database if exists "${freshName}" with (force)`);
    await admin.destroy();
  });

  it('a fresh database beside an old Redis adds its own job where the old one holds the same id', async () => {
    // The old database's order 1 was delivered long ago: its job is complete and kept (a day, by default).
    await enqueue(old.queues, 'fivem', { orderId: 1 }, { jobId: 'fivem-1' });
    const connection = new Redis(old.config.redisUrl, { maxRetriesPerRequest: null });
    const worker = new Worker('fivem', null, { connection, prefix: bullPrefix(prefix), autorun: false });
    try {
      const taken = await worker.getNextJob('test-token');
      await taken!.moveToCompleted('done', 'test-token', false);
    } finally {
      await worker.close();
      connection.disconnect();
    }
    const done = await old.queues.fivem.getJob('fivem-1');
    expect(await done!.getState()).to.equal('completed');

    // The fresh database's own order 1.
    await enqueue(fresh.queues, 'fivem', { orderId: 1 }, { jobId: 'fivem-1' });
    const mine = await fresh.queues.fivem.getJob('fivem-1');
    expect(mine, 'the fresh database’s job exists').to.not.equal(undefined);
    expect(mine!.id).to.not.equal(done!.id);
    expect(await mine!.getState()).to.equal('waiting');
    expect(await fresh.queues.fivem.getWaitingCount()).to.equal(1);
  });

  it('keeps a repeat within one database harmless, and the id stable for every process on it', async () => {
    const again = await createDeps(testConfig({ QUEUE_PREFIX: prefix }), {
      role: 'test',
      pool: { min: 0, max: 1 },
    });
    try {
      await enqueue(old.queues, 'fivem', { orderId: 2 }, { jobId: 'fivem-2' });
      await enqueue(again.queues, 'fivem', { orderId: 2 }, { jobId: 'fivem-2' });
      const jobs = (await old.queues.fivem.getJobs(['waiting'])).filter((j) => j.data.orderId === 2);
      expect(jobs).to.have.length(1);
      const ids = await Promise.all(
        [old, again, fresh].map((d) =>
          d.knex('platform_settings').where({ key: 'instance_id' }).first('value'),
        ),
      );
      expect(ids[0]).to.deep.equal(ids[1]);
      expect(ids[0]).to.not.deep.equal(ids[2]);
    } finally {
      await again.close();
    }
  });
});
