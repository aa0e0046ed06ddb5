import type { Knex } from 'knex';

/**
 * Live traffic counts of the days not rolled up yet (today, mostly), so the Merchant statistics no longer
 * count today's raw events on every call (shared/services/analytics/CONTEXT.md, "live counts";
 * docs/performance.md, "Merchant reads on 100,000 orders"):
 *
 * - `analytics_live`: page views per store and UTC day;
 * - `analytics_live_visitors`: the distinct visitor ids per store and UTC day (their count is the day's
 *   visitors; with the rolled days' id lists, the range's distinct visitors). An insert adds ids with
 *   `on conflict do nothing`, so a returning visitor costs an index probe, not an update.
 *
 * Statement-level triggers on `analytics_events` add each statement's rows (the writer's batch: one
 * INSERT of up to 10,000 rows) in its transaction, in key order so two writers never deadlock, and take
 * out deleted ones. Moves between partitions and the retention (partitions.ts) write the partitions
 * themselves and fire none: their days' counts do not change or are final. A day's rows are deleted
 * when its rollup becomes final (rollups.ts). No foreign keys: a deleted store's rows go with its day's
 * rollup.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table analytics_live (
      store_id integer not null,
      day date not null,
      page_views bigint not null,
      primary key (store_id, day) include (page_views)
    );
    create table analytics_live_visitors (
      store_id integer not null,
      day date not null,
      visitor_id varchar(64) not null,
      primary key (store_id, day, visitor_id)
    );
    create function analytics_live_note() returns trigger language plpgsql as $$
    begin
      execute format($q$
        insert into analytics_live as l (store_id, day, page_views)
        select store_id, (occurred_at at time zone 'UTC')::date, sum(sign)
          from (%s) r where type = 'pageview'
         group by 1, 2 order by 1, 2
        on conflict (store_id, day) do update set page_views = l.page_views + excluded.page_views
      $q$, signed_rows(tg_op));
      if tg_op <> 'DELETE' then
        insert into analytics_live_visitors (store_id, day, visitor_id)
        select distinct store_id, (occurred_at at time zone 'UTC')::date, visitor_id
          from new_rows where visitor_id is not null
         order by 1, 2, 3
        on conflict do nothing;
      end if;
      if tg_op <> 'INSERT' then
        -- A visitor leaves a day with its last event there (rare: the writer only inserts).
        delete from analytics_live_visitors v
         using (select distinct store_id, (occurred_at at time zone 'UTC')::date as day, visitor_id
                  from old_rows where visitor_id is not null) o
         where v.store_id = o.store_id and v.day = o.day and v.visitor_id = o.visitor_id
           and not exists (
             select 1 from analytics_events e
              where e.store_id = o.store_id and e.visitor_id = o.visitor_id
                and e.occurred_at >= o.day::timestamp at time zone 'UTC'
                and e.occurred_at < (o.day + 1)::timestamp at time zone 'UTC');
      end if;
      return null;
    end $$;
    create trigger analytics_events_live_insert after insert on analytics_events
      referencing new table as new_rows for each statement execute function analytics_live_note();
    create trigger analytics_events_live_update after update on analytics_events
      referencing old table as old_rows new table as new_rows for each statement execute function analytics_live_note();
    create trigger analytics_events_live_delete after delete on analytics_events
      referencing old table as old_rows for each statement execute function analytics_live_note();
  `);
  // Every day without a final rollup (rolled at least an hour, rollups.ts SETTLE_MS, after it ended).
  await knex.raw(`
    create temporary table live_days on commit drop as
    select store_id, (occurred_at at time zone 'UTC')::date as day, type, visitor_id
      from analytics_events e
     where not exists (
       select 1 from analytics_rollup_days r
        where r.day = (e.occurred_at at time zone 'UTC')::date
          and r.rolled_at >= r.day + interval '1 day' + interval '1 hour');
    insert into analytics_live (store_id, day, page_views)
    select store_id, day, count(*) from live_days where type = 'pageview' group by 1, 2;
    insert into analytics_live_visitors (store_id, day, visitor_id)
    select distinct store_id, day, visitor_id from live_days where visitor_id is not null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger analytics_events_live_insert on analytics_events;
    drop trigger analytics_events_live_update on analytics_events;
    drop trigger analytics_events_live_delete on analytics_events;
    drop function analytics_live_note();
    drop table analytics_live, analytics_live_visitors;
  `);
}
