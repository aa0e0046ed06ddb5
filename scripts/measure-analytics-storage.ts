/**
 * Storage per million analytics events, before and after the day partitioning (docs/scaling.md,
 * "Analytics storage"). On the server of DATABASE_URL it makes a scratch database, stores EVENTS generated
 * events (100 stores, 30 days, the shapes the collect endpoint stores) in the table as it was before
 * 20261124120000_analytics_partitions, measures it with pg_total_relation_size, runs that migration,
 * measures the partitions again, rolls the days up and measures the rollups; then drops the database.
 *
 *   npx tsx scripts/measure-analytics-storage.ts [EVENTS, default 1000000]
 */
import knexFactory, { Knex } from 'knex';
import { knexConfig } from '../db/knexfile';
import * as migration from '../db/migrations/20261124120000_analytics_partitions';
import { rollupAnalytics } from '../shared/services/analytics/rollups';

const EVENTS = Number(process.argv[2] ?? 1_000_000);
const server = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const name = `analytics_storage_${process.pid}`;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const perMillion = (bytes: number): string => mb((bytes * 1_000_000) / EVENTS);

/** Table, indexes and the rest (TOAST, free space and visibility maps) of the leaf tables named by `leaves`. */
async function parts(knex: Knex, leaves: string): Promise<Record<string, string>> {
  const { rows } = await knex.raw<{ rows: { heap: string; indexes: string; total: string }[] }>(
    `select sum(pg_relation_size(r)) as heap, sum(pg_indexes_size(r)) as indexes,
            sum(pg_total_relation_size(r)) as total from (${leaves}) as l(r)`,
  );
  const { heap, indexes, total } = rows[0]!;
  return {
    table: perMillion(Number(heap)),
    indexes: perMillion(Number(indexes)),
    other: perMillion(Number(total) - Number(heap) - Number(indexes)),
  };
}

async function size(knex: Knex, sql: string): Promise<number> {
  const { rows } = await knex.raw<{ rows: { bytes: string }[] }>(sql);
  return Number(rows[0]!.bytes);
}

async function main(): Promise<void> {
  const adminUrl = new URL(server);
  adminUrl.pathname = '/postgres';
  const admin = knexFactory({ client: 'pg', connection: adminUrl.toString(), pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const knex = knexFactory(
    knexConfig(url.toString(), { min: 0, max: 2 }, { connectMs: 10_000, acquireMs: 60_000, queryMs: 0 }),
  );
  try {
    // The table as the earlier migrations left it (initial schema, then the storefront's columns).
    await knex.schema.createTable('stores', (t) => t.increments('id'));
    await knex.raw('insert into stores select from generate_series(1, 100)');
    await knex.schema.createTable('analytics_events', (t) => {
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
      t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['store_id', 'occurred_at']);
      t.string('ingest_key', 100).unique();
      t.string('referrer_host', 253);
      t.string('visitor_hash', 64);
      t.string('device_class', 10);
    });
    const started = Date.now();
    // Four page views for one event; a third from a search engine; 50,000 visitors; ten events a job.
    await knex.raw(
      `insert into analytics_events (store_id, type, session_id, visitor_id, url, path, event_name, properties,
         title, referrer, referrer_host, screen_width, visitor_hash, device_class, ingest_key, occurred_at)
       select 1 + g % 100, case when g % 5 = 0 then 'event' else 'pageview' end,
              substr(md5(g / 4 || 's'), 1, 24), 'v_' || substr(md5((g % 50000)::text), 1, 16),
              'https://shop' || g % 100 || '.example.com/products/item-' || g % 500,
              '/products/item-' || g % 500,
              case when g % 5 = 0 then 'add_to_cart' end,
              case when g % 5 = 0 then jsonb_build_object('product_id', g % 500, 'quantity', 1) end,
              'Item ' || g % 500 || ' | Shop ' || g % 100,
              case when g % 3 = 0 then 'https://www.google.com/' end,
              case when g % 3 = 0 then 'www.google.com' end,
              390 + (g % 3) * 500, encode(sha256(g::text::bytea), 'hex'),
              (array['desktop', 'mobile', 'tablet'])[1 + g % 3],
              'ev-' || md5((g / 10)::text)::uuid || ':' || g % 10,
              now() - make_interval(secs => (g * 2.592)::int % (30 * 86400))
         from generate_series(1, ?) as g`,
      [EVENTS],
    );
    await knex.raw('vacuum analyze analytics_events');
    const before = await size(knex, "select pg_total_relation_size('analytics_events') as bytes");
    const beforeParts = await parts(knex, "select 'analytics_events'::regclass");
    const generated = Date.now() - started;

    await knex.transaction((trx) => migration.up(trx));
    await knex.raw('vacuum analyze analytics_events');
    const partitionsSql = `select coalesce(sum(pg_total_relation_size(relid)), 0) as bytes
      from pg_partition_tree('analytics_events') where isleaf`;
    const after = await size(knex, partitionsSql);
    const afterParts = await parts(
      knex,
      "select relid from pg_partition_tree('analytics_events') where isleaf",
    );
    await rollupAnalytics(knex, new Date(Date.now() + 2 * 86_400_000));
    const rollups = await size(
      knex,
      "select pg_total_relation_size('analytics_daily') + pg_total_relation_size('analytics_rollup_days') as bytes",
    );
    const days = await size(knex, 'select count(*) as bytes from analytics_daily');
    console.log(
      JSON.stringify(
        {
          events: EVENTS,
          generated_ms: generated,
          before: { total: mb(before), per_million: perMillion(before), ...beforeParts },
          after_partitioned: { total: mb(after), per_million: perMillion(after), ...afterParts },
          rollups: { total: mb(rollups), rows: days, per_store_day: `${Math.round(rollups / days)} bytes` },
        },
        null,
        2,
      ),
    );
  } finally {
    await knex.destroy();
    await admin.raw(`drop database if exists ${name} with (force)`);
    await admin.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
