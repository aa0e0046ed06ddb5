import { expect } from 'chai';
import knexFactory, { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { knexConfig } from '../../../db/knexfile';
import * as migration from '../../../db/migrations/20261124120000_analytics_partitions';
import type { Deps } from '../../../shared/deps';
import { dayOf, ensurePartitions, partitionName } from '../../../shared/services/analytics/partitions';
import { AnalyticsWriter, ingestRows } from '../../../shared/services/analytics/writer';
import { MAINTENANCE_TASKS } from '../../../shared/services/maintenance';
import { storeStatistics } from '../../../shared/services/statistics';
import { createStore } from '../../helpers/builders';
import { sharedDeps } from '../../helpers/deps';
import { TEST_DB_NAME, testDatabaseUrl } from '../../helpers/env';

/**
 * Analytics that stay small (docs/scaling.md, "Analytics storage"): events land in day partitions (the
 * batch writer included), the scheduler's tasks make partitions ahead, roll finished days up and drop raw
 * days past the retention, and the Merchant statistics answer the same before and after each step. The
 * migration that partitions the table keeps every row.
 */
const DAY = 86_400_000;

describe('Analytics storage: day partitions, rollups, retention', function () {
  this.timeout(60_000);
  let deps: Deps;
  let knex: Knex;
  let store: Store;
  const now = new Date();
  const daysAgo = (n: number, minutes = 1) =>
    new Date(
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - n * DAY + minutes * 60_000,
    );

  const whereIs = async (id: number): Promise<string> =>
    (
      await knex.raw<{ rows: { part: string }[] }>(
        'select tableoid::regclass::text as part from analytics_events where id = ?',
        [id],
      )
    ).rows[0]!.part;

  before(async () => {
    deps = await sharedDeps();
    knex = deps.knex;
    store = await createStore();
    const other = await createStore();
    // Visitors v0..v9 over 35 days, some on several days; the other store's events never count here.
    const rows: Record<string, unknown>[] = [];
    for (const ago of [0, 1, 2, 3, 6, 10, 20, 29, 35]) {
      for (let j = 0; j < 12; j += 1) {
        rows.push({
          store_id: store.id,
          type: j % 3 === 0 ? 'event' : 'pageview',
          visitor_id: j === 11 ? null : `v${(j + ago) % 10}`,
          path: '/',
          occurred_at: daysAgo(ago, j * 7),
        });
      }
      rows.push({ store_id: other.id, type: 'pageview', visitor_id: 'x', occurred_at: daysAgo(ago) });
    }
    await knex('analytics_events').insert(rows);
  });

  after(async () => {
    // Rollups are final for their days: leave none behind for the suites that seed past days later.
    await knex('analytics_rollup_days').delete();
    await knex('analytics_daily').delete();
  });

  it('makes yesterday to a week ahead their partitions, moving rows the default partition held', async () => {
    const yesterday = partitionName(dayOf(daysAgo(1)));
    // Yesterday's rows in the default partition, as when the scheduler was not running.
    const exists = await knex.raw<{ rows: unknown[] }>('select 1 from pg_class where relname = ?', [
      yesterday,
    ]);
    if (exists.rows.length > 0) {
      await knex.raw(`alter table analytics_events detach partition ${yesterday}`);
      await knex.raw(`insert into analytics_events select * from ${yesterday}`);
      await knex.raw(`drop table ${yesterday}`);
    }
    const [{ id }] = await knex('analytics_events')
      .insert({ store_id: store.id, type: 'event', visitor_id: 'moved', occurred_at: daysAgo(1, 600) })
      .returning('id');
    expect(await whereIs(Number(id))).to.equal('analytics_events_default');

    const result = await MAINTENANCE_TASKS['analytics-partitions']!(knex, now, {
      queues: deps.queues,
      tx: deps.tx,
    });
    expect(result.created).to.be.at.least(1);
    for (let i = -1; i <= 7; i += 1) {
      const name = partitionName(dayOf(new Date(daysAgo(0).getTime() + i * DAY)));
      const found = await knex.raw<{ rows: unknown[] }>('select 1 from pg_class where relname = ?', [name]);
      expect(found.rows, name).to.have.length(1);
    }
    expect(await whereIs(Number(id))).to.equal(yesterday);
    const ofYesterday = await knex(yesterday).where('store_id', store.id).count<{ n: string }[]>('* as n');
    expect(Number(ofYesterday[0]!.n)).to.equal(12 + 1);
    expect(await ensurePartitions(knex, now)).to.deep.equal({ created: 0 });
    await knex('analytics_events').where({ visitor_id: 'moved' }).delete();
  });

  it('writes batches into the day partition and still writes a job run twice once', async () => {
    const writer = new AnalyticsWriter(knex, { maxEvents: 10_000, maxWaitMs: 10 });
    const event = {
      type: 'pageview' as const,
      session_id: null,
      visitor_id: 'batch',
      url: null,
      path: '/b',
      event_name: null,
      properties: { a: 1 },
      title: null,
      referrer: null,
      referrer_host: null,
      screen_width: 390,
      destination: null,
      text: null,
      visitor_hash: 'h',
      device_class: 'mobile' as const,
    };
    const rows = ingestRows('ev-partitioned', store.id, now.toISOString(), [event, event]);
    await writer.add(rows);
    await writer.add(rows);
    const stored = await knex('analytics_events').where({ visitor_id: 'batch' }).select('id', 'ingest_key');
    expect(stored.map((r) => r.ingest_key).sort()).to.deep.equal(['ev-partitioned:0', 'ev-partitioned:1']);
    expect(await whereIs(Number(stored[0]!.id))).to.equal(partitionName(dayOf(now)));
    await knex('analytics_events').where({ visitor_id: 'batch' }).delete();
  });

  it('answers the same statistics from the rollups, and after the raw days past retention are gone', async () => {
    const before = await storeStatistics(knex, store, now);
    expect(before.traffic.page_views_30_days).to.equal(8 * 8); // 8 days in the window, 8 page views each
    expect(before.traffic.visitors_30_days).to.equal(10);

    const rolled = await MAINTENANCE_TASKS['analytics-rollup']!(knex, now, {
      queues: deps.queues,
      tx: deps.tx,
    });
    expect(rolled.rolledDays).to.be.at.least(7);
    const daily = await knex('analytics_daily')
      .where({ store_id: store.id, day: dayOf(daysAgo(10)) })
      .first();
    expect(daily).to.include({ events: 12, page_views: 8, visitors: 10 });
    expect(await storeStatistics(knex, store, now)).to.deep.equal(before);

    const dropped = await MAINTENANCE_TASKS['analytics-retention']!(knex, now, {
      queues: deps.queues,
      tx: deps.tx,
      config: { merchantWebhookRetryDelayMs: 1, analyticsRetentionDays: 5 },
    });
    expect(dropped.deletedRows + dropped.droppedPartitions).to.be.at.least(1);
    const old = await knex('analytics_events')
      .where('store_id', store.id)
      .where('occurred_at', '<', daysAgo(5, 0))
      .count<{ n: string }[]>('* as n');
    expect(Number(old[0]!.n)).to.equal(0);
    const recent = await knex('analytics_events')
      .where('store_id', store.id)
      .count<{ n: string }[]>('* as n');
    expect(Number(recent[0]!.n)).to.equal(4 * 12); // today, 1, 2 and 3 days ago
    expect(await storeStatistics(knex, store, now)).to.deep.equal(before);
  });

  it('the migration partitions an existing table keeping every row, and its down migration undoes it', async () => {
    const name = `${TEST_DB_NAME}_parts`;
    await knex.raw(`create database "${name}"`);
    const url = testDatabaseUrl.replace(TEST_DB_NAME, name);
    const scratch = knexFactory(knexConfig(url, { min: 0, max: 1 }));
    try {
      // Only what the migration reads, as the earlier migrations left it (initial schema, storefront).
      await scratch.schema.createTable('stores', (t) => t.increments('id'));
      await scratch.schema.createTable('analytics_events', (t) => {
        t.bigIncrements('id');
        t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE').index();
        t.string('type', 20).notNullable();
        t.string('session_id', 64);
        t.string('visitor_id', 64);
        t.string('url', 2000);
        t.string('path', 500);
        t.string('event_name', 100);
        t.jsonb('properties');
        t.string('title', 500);
        t.string('referrer', 2000);
        t.integer('screen_width');
        t.string('destination', 2000);
        t.string('text', 200);
        t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(scratch.fn.now());
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(scratch.fn.now());
        t.index(['store_id', 'occurred_at']);
        t.string('ingest_key', 100).unique();
        t.string('referrer_host', 253);
        t.string('visitor_hash', 64);
        t.string('device_class', 10);
      });
      const [{ id: storeId }] = await scratch('stores').insert({}).returning('id');
      const old = [0, 1, 40, 400].map((ago, i) => ({
        store_id: storeId,
        type: 'pageview',
        visitor_id: `v${i}`,
        ingest_key: `job-${i}:0`,
        properties: JSON.stringify({ i }),
        occurred_at: daysAgo(ago),
      }));
      await scratch('analytics_events').insert(old);
      const pick = (k: Knex) =>
        k('analytics_events')
          .orderBy('id')
          .select('id', 'visitor_id', 'ingest_key', 'properties', 'occurred_at', 'created_at');
      const was = await pick(scratch);
      await scratch.transaction((trx) => migration.up(trx));
      expect(await pick(scratch)).to.deep.equal(was);
      const parts = await scratch.raw<{ rows: { part: string }[] }>(
        'select tableoid::regclass::text as part from analytics_events order by id',
      );
      expect(parts.rows.map((r) => r.part)).to.deep.equal([
        partitionName(dayOf(daysAgo(0))),
        partitionName(dayOf(daysAgo(1))),
        partitionName(dayOf(daysAgo(40))),
        'analytics_events_default', // older than the 90 days the migration makes partitions for
      ]);
      // New ids continue the old sequence.
      const [{ id: next }] = await scratch('analytics_events')
        .insert({ store_id: storeId, type: 'event', occurred_at: daysAgo(0) })
        .returning('id');
      expect(Number(next)).to.be.greaterThan(Number(was[3].id));
      await scratch.transaction((trx) => migration.down(trx));
      const kept = await scratch('analytics_events').count<{ n: string }[]>('* as n');
      expect(Number(kept[0]!.n)).to.equal(5);
    } finally {
      await scratch.destroy();
      await knex.raw(`drop database if exists "${name}" with (force)`);
    }
  });
});
