import type { Knex } from 'knex';

/**
 * Daily rollups of the analytics events (`analytics_daily`, one row per store and UTC day: events, page
 * views, distinct visitors and the day's distinct visitor ids). The Merchant statistics read a finished
 * day here instead of its raw events, which may then be dropped (partitions.ts).
 *
 * A day counts as rolled up once it was rolled at least SETTLE_MS after it ended
 * (`analytics_rollup_days.rolled_at`): events reach Postgres through the `analytics` queue, seconds after
 * the API accepted them (their `occurred_at`), so a day is final once its last events have had time to be
 * written. Before that (today, and yesterday for the first hour), readers take the day's live counts,
 * which a trigger on the raw events keeps equal to counting them, so a rollup never changes an answer.
 * Events written more than SETTLE_MS late (a queue backlog of that long) are counted only if the day is
 * rolled again before its raw events are dropped.
 */

export const SETTLE_MS = 3_600_000;
const DAY_MS = 86_400_000;

const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
const startOfDay = (d: Date): Date => new Date(`${dayOf(d)}T00:00:00Z`);

/** Rolls up one UTC day for every store, replacing what was there, in one transaction. */
export async function rollupDay(knex: Knex, day: string): Promise<void> {
  const from = `${day} 00:00:00+00`;
  const to = `${dayOf(new Date(new Date(`${day}T00:00:00Z`).getTime() + DAY_MS))} 00:00:00+00`;
  await knex.transaction(async (trx) => {
    await trx('analytics_daily').where('day', day).delete();
    await trx.raw(
      `insert into analytics_daily (store_id, day, events, page_views, visitors, visitor_ids)
       select store_id, ?::date, count(*), count(*) filter (where type = 'pageview'),
              count(distinct visitor_id),
              coalesce(array_agg(distinct visitor_id) filter (where visitor_id is not null), '{}')
         from analytics_events
        where occurred_at >= ? and occurred_at < ?
        group by store_id`,
      [day, from, to],
    );
    await trx.raw(
      `insert into analytics_rollup_days (day, rolled_at) values (?, now())
       on conflict (day) do update set rolled_at = excluded.rolled_at`,
      [day],
    );
    // Once the day is final, readers take it from the rollup, no longer from its live counts.
    for (const table of ['analytics_live', 'analytics_live_visitors']) {
      await trx.raw(
        `delete from ${table} where day = ?::date and now() >= ?::date + interval '1 day' + make_interval(secs => ?)`,
        [day, day, SETTLE_MS / 1000],
      );
    }
  });
}

/**
 * Rolls up every finished day that has raw events (a day partition, or rows in the default partition)
 * and no final rollup yet. Safe to run twice or at once: a day is rolled whole in one transaction.
 */
export async function rollupAnalytics(knex: Knex, now: Date = new Date()): Promise<{ rolledDays: number }> {
  const today = dayOf(now);
  const { rows } = await knex.raw<{ rows: { day: string }[] }>(
    `with days as (
       select to_date(substring(c.relname from '(\\d{8})$'), 'YYYYMMDD') as day
         from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'analytics_events'::regclass and c.relname ~ '_p\\d{8}$'
       union
       select distinct (occurred_at at time zone 'UTC')::date from analytics_events_default
     )
     select to_char(d.day, 'YYYY-MM-DD') as day from days d
       left join analytics_rollup_days r on r.day = d.day
      where d.day < ?::date
        and (r.day is null or r.rolled_at < d.day + interval '1 day' + make_interval(secs => ?))
      order by d.day`,
    [today, SETTLE_MS / 1000],
  );
  for (const { day } of rows) await rollupDay(knex, day);
  return { rolledDays: rows.length };
}

export interface DailyTraffic {
  /** Per UTC day with events: distinct visitors and page views. */
  days: Map<string, { visitors: number; page_views: number }>;
  /** Distinct visitors and page views over the whole range. */
  visitors: number;
  page_views: number;
}

/**
 * A store's traffic from `first` (a UTC day) to the day of `now`: finished days from the rollups, the
 * others from their live counts (equal to counting their raw events), with distinct visitors over the
 * range counted exactly across both.
 */
export async function dailyTraffic(
  knex: Knex,
  storeId: number,
  first: Date,
  now: Date,
): Promise<DailyTraffic> {
  const firstDay = dayOf(first);
  const final = await knex('analytics_rollup_days')
    .where('day', '>=', firstDay)
    .where('day', '<', dayOf(now))
    .whereRaw("rolled_at >= day + interval '1 day' + make_interval(secs => ?)", [SETTLE_MS / 1000])
    .select<{ day: string }[]>(knex.raw("to_char(day, 'YYYY-MM-DD') as day"));
  const rolled = final.map((r) => r.day);
  // The days not rolled up (usually today): from the live counts, kept by a trigger on the raw events
  // (migration 20261125000110_analytics_live.ts) so no call counts the day's events.
  let liveFrom = startOfDay(first);
  const rolledSet = new Set(rolled);
  while (rolledSet.has(dayOf(liveFrom)) && liveFrom.getTime() <= now.getTime()) {
    liveFrom = new Date(liveFrom.getTime() + DAY_MS);
  }
  const live = (table: string) =>
    knex(table)
      .where('store_id', storeId)
      .where('day', '>=', dayOf(liveFrom))
      // A Postgres array literal: knex would spread a JS array into a list of bindings.
      .whereRaw('not (day = any(?::date[]))', [`{${rolled.join(',')}}`]);

  const [fromRollups, fromLive, total] = await Promise.all([
    knex('analytics_daily')
      .where('store_id', storeId)
      .whereIn('day', rolled)
      .select<{ day: string; visitors: number; page_views: number }[]>(
        knex.raw("to_char(day, 'YYYY-MM-DD') as day"),
        'visitors',
        'page_views',
      ),
    knex
      .from(
        live('analytics_live')
          .select('day', 'page_views', knex.raw('0 as visitors'))
          .unionAll(
            live('analytics_live_visitors').groupBy('day').select('day', knex.raw('0'), knex.raw('count(*)')),
          )
          .as('l'),
      )
      .groupBy('day')
      .select<{ day: string; visitors: number; page_views: number }[]>(
        knex.raw("to_char(day, 'YYYY-MM-DD') as day"),
        knex.raw('sum(visitors)::int as visitors'),
        knex.raw('sum(page_views)::int as page_views'),
      ),
    // Distinct visitors over the range: the rolled days' id lists and the live days' ids, counted once.
    knex
      .from(
        knex
          .select(knex.raw('unnest(visitor_ids) as v'))
          .from('analytics_daily')
          .where('store_id', storeId)
          .whereIn('day', rolled)
          .unionAll(live('analytics_live_visitors').select('visitor_id as v'))
          .as('ids'),
      )
      .first<{ v: number }>(knex.raw('count(distinct v)::int as v')),
  ]);

  const days = new Map<string, { visitors: number; page_views: number }>();
  let pageViews = 0;
  for (const row of [...fromRollups, ...fromLive]) {
    days.set(row.day, { visitors: Number(row.visitors), page_views: Number(row.page_views) });
    pageViews += Number(row.page_views);
  }
  return { days, visitors: Number(total?.v ?? 0), page_views: pageViews };
}
