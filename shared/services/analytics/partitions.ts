import type { Knex } from 'knex';
import { rollupAnalytics } from './rollups';

/**
 * The day partitions of `analytics_events` (db/migrations/20261124120000_analytics_partitions.ts): one
 * table per UTC day, `analytics_events_pYYYYMMDD`, and `analytics_events_default` for rows no day
 * partition takes. The scheduler keeps AHEAD_DAYS of partitions ready (`analytics-partitions`, hourly) and
 * drops whole days past ANALYTICS_RETENTION_DAYS once they are rolled up (`analytics-retention`, daily),
 * so old events leave without a DELETE, its WAL or its bloat (docs/scaling.md, "Analytics storage").
 */

export const PARENT = 'analytics_events';
export const DEFAULT_PARTITION = 'analytics_events_default';
export const AHEAD_DAYS = 7;
const DAY_MS = 86_400_000;

export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
export const startOfDay = (d: Date): Date => new Date(`${dayOf(d)}T00:00:00Z`);
export const partitionName = (day: string): string => `${PARENT}_p${day.replace(/-/g, '')}`;
const nextDay = (day: string): string => dayOf(new Date(new Date(`${day}T00:00:00Z`).getTime() + DAY_MS));

/** The days that have their own partition, oldest first. */
export async function partitionDays(knex: Knex): Promise<string[]> {
  const { rows } = await knex.raw<{ rows: { name: string }[] }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ?::regclass`,
    [PARENT],
  );
  return rows
    .map((r) => /^analytics_events_p(\d{4})(\d{2})(\d{2})$/.exec(r.name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]}-${m[2]}-${m[3]}`)
    .sort();
}

/**
 * Creates the partition of one day. Rows of that day already in the default partition (written while the
 * day had none) move into it in the same transaction, with the default partition locked against inserts
 * meanwhile, since Postgres refuses a new partition whose rows the default partition holds.
 */
async function createPartition(knex: Knex, day: string): Promise<void> {
  const name = partitionName(day);
  const [from, to] = [`${day} 00:00:00+00`, `${nextDay(day)} 00:00:00+00`];
  // DDL takes no parameters; `day` is a YYYY-MM-DD we formatted ourselves.
  const bounds = `for values from ('${from}') to ('${to}')`;
  await knex.transaction(async (trx) => {
    await trx.raw(`lock table ${DEFAULT_PARTITION} in share row exclusive mode`);
    const stray = await trx(DEFAULT_PARTITION)
      .where('occurred_at', '>=', from)
      .where('occurred_at', '<', to)
      .first(trx.raw('1 as one'));
    if (!stray) {
      await trx.raw(`create table if not exists ${name} partition of ${PARENT} ${bounds}`);
      return;
    }
    await trx.raw(`create table ${name} (like ${PARENT} including defaults including constraints)`);
    await trx.raw(
      `with moved as (delete from ${DEFAULT_PARTITION} where occurred_at >= ? and occurred_at < ? returning *)
       insert into ${name} select * from moved`,
      [from, to],
    );
    await trx.raw(`alter table ${PARENT} attach partition ${name} ${bounds}`);
  });
}

/** Yesterday, today and AHEAD_DAYS ahead each have their partition; reports how many it made. */
export async function ensurePartitions(
  knex: Knex,
  now: Date = new Date(),
  aheadDays = AHEAD_DAYS,
): Promise<{ created: number }> {
  const existing = new Set(await partitionDays(knex));
  const today = startOfDay(now).getTime();
  let created = 0;
  for (let i = -1; i <= aheadDays; i += 1) {
    const day = dayOf(new Date(today + i * DAY_MS));
    if (existing.has(day)) continue;
    await createPartition(knex, day);
    created += 1;
  }
  return { created };
}

/**
 * Raw events older than `retentionDays` (whole UTC days before today) go: their day partitions are
 * dropped, and the default partition's old rows deleted. Days are rolled up first, and a day whose
 * rollup is missing is never dropped, so the statistics keep every day (shared/services/statistics/index.ts).
 */
export async function dropExpiredEvents(
  knex: Knex,
  now: Date,
  retentionDays: number,
): Promise<{ droppedPartitions: number; deletedRows: number; rolledDays: number }> {
  const { rolledDays } = await rollupAnalytics(knex, now);
  const cutoff = dayOf(new Date(startOfDay(now).getTime() - retentionDays * DAY_MS));
  const rolled = new Set(
    (
      await knex('analytics_rollup_days')
        .where('day', '<', cutoff)
        .select<{ day: string }[]>(knex.raw("to_char(day, 'YYYY-MM-DD') as day"))
    ).map((r) => r.day),
  );
  let droppedPartitions = 0;
  for (const day of await partitionDays(knex)) {
    if (day >= cutoff || !rolled.has(day)) continue;
    await knex.raw(`drop table if exists ${partitionName(day)}`);
    droppedPartitions += 1;
  }
  let deletedRows = 0;
  for (;;) {
    // Bounded batches, of rolled-up days only (the default partition is small: rows of days without
    // their own partition).
    const n = await knex(DEFAULT_PARTITION)
      .whereIn(
        'id',
        knex(DEFAULT_PARTITION)
          .select('id')
          .where('occurred_at', '<', `${cutoff} 00:00:00+00`)
          .whereExists(
            knex('analytics_rollup_days as r').whereRaw(
              `r.day = (${DEFAULT_PARTITION}.occurred_at at time zone 'UTC')::date`,
            ),
          )
          .limit(10_000),
      )
      .delete();
    deletedRows += n;
    if (n < 10_000) break;
  }
  return { droppedPartitions, deletedRows, rolledDays };
}
