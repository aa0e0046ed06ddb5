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
 * range counted exactly across both. One statement: the Merchant statistics call it on every request.
 */
export async function dailyTraffic(
  knex: Knex,
  storeId: number,
  first: Date,
  now: Date,
): Promise<DailyTraffic> {
  const { rows } = await knex.raw<{ rows: { day: string | null; visitors: number; page_views: number }[] }>(
    `with final as (
       select day from analytics_rollup_days
        where day >= :first and day < :today
          and rolled_at >= day + interval '1 day' + make_interval(secs => :settle)
     ), rolled as (
       select day, visitors, page_views, visitor_ids from analytics_daily
        where store_id = :store and day in (select day from final)
     ), live_visitors as (
       select day, visitor_id from analytics_live_visitors
        where store_id = :store and day >= :first and day not in (select day from final)
     ), live as (
       select day, sum(visitors) as visitors, sum(page_views) as page_views
         from (select day, 0 as visitors, page_views from analytics_live
                where store_id = :store and day >= :first and day not in (select day from final)
               union all
               select day, count(*), 0 from live_visitors group by day) l
        group by day
     )
     select to_char(day, 'YYYY-MM-DD') as day, visitors::int, page_views::int from rolled
     union all
     select to_char(day, 'YYYY-MM-DD'), visitors::int, page_views::int from live
     union all
     -- The range's distinct visitors: the rolled days' id lists and the live days' ids, counted once.
     select null, count(distinct v)::int, 0
       from (select unnest(visitor_ids) as v from rolled
             union all
             select visitor_id from live_visitors) ids`,
    { first: dayOf(first), today: dayOf(now), settle: SETTLE_MS / 1000, store: storeId },
  );
  const days = new Map<string, { visitors: number; page_views: number }>();
  let visitors = 0;
  let pageViews = 0;
  for (const row of rows) {
    if (row.day === null) {
      visitors = Number(row.visitors);
      continue;
    }
    days.set(row.day, { visitors: Number(row.visitors), page_views: Number(row.page_views) });
    pageViews += Number(row.page_views);
  }
  return { days, visitors, page_views: pageViews };
}
