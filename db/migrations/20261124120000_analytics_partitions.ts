import type { Knex } from 'knex';

/**
 * Analytics that stay small (docs/scaling.md, "Analytics storage"):
 * - `analytics_events` becomes a table partitioned by UTC day on `occurred_at` (`analytics_events_pYYYYMMDD`),
 *   with a default partition for rows no day partition takes. The scheduler creates day partitions ahead
 *   and drops whole ones past ANALYTICS_RETENTION_DAYS (shared/services/analytics/partitions.ts), so old
 *   events leave without a DELETE, its WAL or bloat. Every row is kept: the table is copied over here.
 *   Postgres wants the partition key in every unique index: the ingest key is unique with `occurred_at`,
 *   which a job's rows share (the time the API accepted them), so a job run twice still writes once.
 *   The single-column `store_id` index goes (the `(store_id, occurred_at)` one serves it), and so does the
 *   primary key on `id`: nothing looks a row up by id; `id` stays, from the same sequence, for ordering.
 * - `analytics_daily`: the daily rollup per store (events, page views, distinct visitors and their ids, so
 *   that distinct visitors over 30 days stay exact), and `analytics_rollup_days`: the days rolled up.
 *   The Merchant statistics read finished days there and only the days not rolled up from the raw events.
 */

const AHEAD_DAYS = 7;
/** Day partitions made here for the rows already stored (older rows go to the default partition). */
const BACK_DAYS = 90;

const day = (d: Date): string => d.toISOString().slice(0, 10);
const partitionName = (d: string): string => `analytics_events_p${d.replace(/-/g, '')}`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table analytics_events rename to analytics_events_unpartitioned');
  // Index and constraint names are schema-wide: the old ones go before the new table takes them.
  await knex.raw(`alter table analytics_events_unpartitioned
    drop constraint if exists analytics_events_pkey,
    drop constraint if exists analytics_events_ingest_key_unique`);
  await knex.raw('drop index if exists analytics_events_store_id_occurred_at_index');
  await knex.raw('drop index if exists analytics_events_store_id_index');
  await knex.raw(`alter table analytics_events_unpartitioned
    drop constraint if exists analytics_events_store_id_foreign`);

  // Fixed-width columns first: no alignment padding between the text columns.
  await knex.raw(`create table analytics_events (
    id bigint not null default nextval('analytics_events_id_seq'),
    occurred_at timestamptz not null default now(),
    created_at timestamptz not null default now(),
    store_id integer not null,
    screen_width integer,
    type varchar(20) not null,
    device_class varchar(10),
    session_id varchar(64),
    visitor_id varchar(64),
    visitor_hash varchar(64),
    ingest_key varchar(100),
    event_name varchar(100),
    path varchar(500),
    title varchar(500),
    url varchar(2000),
    referrer varchar(2000),
    referrer_host varchar(253),
    destination varchar(2000),
    text varchar(200),
    properties jsonb,
    constraint analytics_events_store_id_foreign foreign key (store_id) references stores (id) on delete cascade
  ) partition by range (occurred_at)`);
  await knex.raw('alter sequence analytics_events_id_seq owned by analytics_events.id');
  await knex.raw(
    'create index analytics_events_store_id_occurred_at_index on analytics_events (store_id, occurred_at)',
  );
  await knex.raw(
    'create unique index analytics_events_ingest_key_occurred_at_unique on analytics_events (ingest_key, occurred_at)',
  );
  await knex.raw('create table analytics_events_default partition of analytics_events default');

  const { rows } = await knex.raw<{ rows: { day: string }[] }>(
    `select distinct to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD') as day
       from analytics_events_unpartitioned
      where occurred_at >= now() - make_interval(days => ?)`,
    [BACK_DAYS],
  );
  const days = new Set(rows.map((r) => r.day));
  const today = new Date(`${day(new Date())}T00:00:00Z`);
  for (let i = 0; i <= AHEAD_DAYS; i += 1) days.add(day(new Date(today.getTime() + i * 86_400_000)));
  for (const d of [...days].sort()) {
    const next = day(new Date(new Date(`${d}T00:00:00Z`).getTime() + 86_400_000));
    await knex.raw(
      `create table ${partitionName(d)} partition of analytics_events
         for values from ('${d} 00:00:00+00') to ('${next} 00:00:00+00')`,
    );
  }

  await knex.raw(`insert into analytics_events (id, occurred_at, created_at, store_id, screen_width, type,
      device_class, session_id, visitor_id, visitor_hash, ingest_key, event_name, path, title, url, referrer,
      referrer_host, destination, text, properties)
    select id, occurred_at, created_at, store_id, screen_width, type, device_class, session_id, visitor_id,
      visitor_hash, ingest_key, event_name, path, title, url, referrer, referrer_host, destination, text,
      properties
      from analytics_events_unpartitioned`);
  await knex.raw('drop table analytics_events_unpartitioned');

  await knex.schema.createTable('analytics_daily', (t) => {
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.date('day').notNullable();
    t.integer('events').notNullable();
    t.integer('page_views').notNullable();
    t.integer('visitors').notNullable();
    /** The day's distinct visitor ids: distinct visitors over several days are counted exactly from them. */
    t.specificType('visitor_ids', 'text[]').notNullable();
    t.primary(['store_id', 'day']);
  });
  await knex.schema.createTable('analytics_rollup_days', (t) => {
    t.date('day').primary();
    t.timestamp('rolled_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('analytics_rollup_days');
  await knex.schema.dropTableIfExists('analytics_daily');
  await knex.raw('alter table analytics_events rename to analytics_events_partitioned');
  await knex.raw('alter index analytics_events_store_id_occurred_at_index rename to analytics_events_p_so');
  await knex.raw(
    'alter table analytics_events_partitioned rename constraint analytics_events_store_id_foreign to analytics_events_p_fk',
  );
  await knex.raw(`create table analytics_events (
    id bigint primary key default nextval('analytics_events_id_seq'),
    store_id integer not null references stores (id) on delete cascade,
    type varchar(20) not null,
    session_id varchar(64),
    visitor_id varchar(64),
    url varchar(2000),
    path varchar(500),
    event_name varchar(100),
    properties jsonb,
    title varchar(500),
    referrer varchar(2000),
    screen_width integer,
    destination varchar(2000),
    text varchar(200),
    occurred_at timestamptz not null default now(),
    created_at timestamptz not null default now(),
    ingest_key varchar(100) constraint analytics_events_ingest_key_unique unique,
    referrer_host varchar(253),
    visitor_hash varchar(64),
    device_class varchar(10)
  )`);
  await knex.raw('alter sequence analytics_events_id_seq owned by analytics_events.id');
  await knex.raw('create index analytics_events_store_id_index on analytics_events (store_id)');
  await knex.raw(
    'create index analytics_events_store_id_occurred_at_index on analytics_events (store_id, occurred_at)',
  );
  await knex.raw(`insert into analytics_events (id, store_id, type, session_id, visitor_id, url, path, event_name,
      properties, title, referrer, screen_width, destination, text, occurred_at, created_at, ingest_key,
      referrer_host, visitor_hash, device_class)
    select id, store_id, type, session_id, visitor_id, url, path, event_name, properties, title, referrer,
      screen_width, destination, text, occurred_at, created_at, ingest_key, referrer_host, visitor_hash,
      device_class
      from analytics_events_partitioned`);
  await knex.raw('drop table analytics_events_partitioned');
}
