import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { dailyTraffic, rollupAnalytics, SETTLE_MS } from '../../../shared/services/analytics/rollups';
import { createStore } from '../../helpers/builders';
import { sharedDeps } from '../../helpers/deps';

const DAY = 86_400_000;

/**
 * The live traffic counts (migration 20261125000110_analytics_live.ts): the days not rolled up are read
 * from counts a trigger keeps on every insert of raw events, and answer what counting those events
 * answers, before and after the rollup makes a day final (which then drops its live counts).
 */
describe('Analytics: live counts of the days not rolled up', function () {
  this.timeout(60_000);
  let knex: Knex;
  let store: Store;
  let other: Store;
  const now = new Date();
  const today = Math.floor(now.getTime() / DAY) * DAY;
  const first = new Date(today - 29 * DAY);

  before(async () => {
    knex = (await sharedDeps()).knex;
    store = await createStore();
    other = await createStore();
  });

  after(async () => {
    // Rollups are final for their days: leave none behind for the suites that seed past days later.
    await knex('analytics_rollup_days').delete();
    await knex('analytics_daily').delete();
  });

  let key = 0;
  const events = (storeId: number, daysAgo: number, n: number, visitors: number) =>
    Array.from({ length: n }, (_, j) => ({
      store_id: storeId,
      type: j % 3 === 0 ? 'event' : 'pageview',
      visitor_id: j % 5 === 4 ? null : `v${j % visitors}`,
      path: '/',
      occurred_at: new Date(today - daysAgo * DAY + j * 1_000),
      ingest_key: `live-${(key += 1)}`,
    }));

  /** The traffic counted from the raw events, as the statistics did before the live counts. */
  async function counted(storeId: number) {
    const rows = await knex('analytics_events')
      .where('store_id', storeId)
      .where('occurred_at', '>=', first)
      .select<{ occurred_at: Date; type: string; visitor_id: string | null }[]>(
        'occurred_at',
        'type',
        'visitor_id',
      );
    const days = new Map<string, { visitors: Set<string>; page_views: number }>();
    const all = new Set<string>();
    for (const r of rows) {
      const d = r.occurred_at.toISOString().slice(0, 10);
      const day = days.get(d) ?? { visitors: new Set<string>(), page_views: 0 };
      if (r.visitor_id !== null) {
        day.visitors.add(r.visitor_id);
        all.add(r.visitor_id);
      }
      if (r.type === 'pageview') day.page_views += 1;
      days.set(d, day);
    }
    return { days, visitors: all.size };
  }

  async function expectCounted(storeId: number): Promise<void> {
    const want = await counted(storeId);
    const got = await dailyTraffic(knex, storeId, first, now);
    expect(got.visitors).to.equal(want.visitors);
    let pageViews = 0;
    for (const [date, w] of want.days) {
      pageViews += w.page_views;
      expect(got.days.get(date) ?? { visitors: 0, page_views: 0 }, date).to.deep.equal({
        visitors: w.visitors.size,
        page_views: w.page_views,
      });
    }
    for (const [date, g] of got.days) {
      if (!want.days.has(date)) expect(g, date).to.deep.equal({ visitors: 0, page_views: 0 });
    }
    expect(got.page_views).to.equal(pageViews);
  }

  it('counts each insert once, duplicates of an ingest key included, and takes deleted events out', async () => {
    const rows = [
      ...events(store.id, 0, 60, 7),
      ...events(store.id, 1, 30, 4),
      ...events(store.id, 3, 20, 9),
    ];
    await knex('analytics_events').insert(rows);
    await knex('analytics_events').insert(events(other.id, 0, 25, 3));
    await expectCounted(store.id);
    // The writer's retry of a job: the same ingest keys write nothing and count nothing.
    await knex('analytics_events')
      .insert(rows.slice(0, 20))
      .onConflict(['ingest_key', 'occurred_at'])
      .ignore();
    // Two writers at once on one store and day.
    await Promise.all([
      knex('analytics_events').insert(events(store.id, 0, 40, 11)),
      knex('analytics_events').insert(events(store.id, 0, 40, 13)),
    ]);
    await expectCounted(store.id);
    await expectCounted(other.id);
    // Deleted events leave the counts; a visitor leaves a day with its last event there.
    await knex('analytics_events')
      .whereIn(
        'ingest_key',
        rows.slice(0, 10).map((r) => r.ingest_key),
      )
      .delete();
    await knex('analytics_events').where({ store_id: store.id, visitor_id: 'v2' }).delete();
    await expectCounted(store.id);
    expect(
      await knex('analytics_live_visitors').where({ store_id: store.id, visitor_id: 'v2' }),
    ).to.deep.equal([]);
  });

  it('answers the same once finished days are rolled up, and drops their live counts when final', async () => {
    await rollupAnalytics(knex, now);
    await expectCounted(store.id);
    await expectCounted(other.id);
    const final = (
      await knex('analytics_rollup_days')
        .whereRaw("rolled_at >= day + interval '1 day' + make_interval(secs => ?)", [SETTLE_MS / 1000])
        .select(knex.raw("to_char(day, 'YYYY-MM-DD') as d"))
    ).map((r: { d: string }) => r.d);
    // Three days ago is final whatever the hour; today never is.
    expect(final).to.include(new Date(today - 3 * DAY).toISOString().slice(0, 10));
    const live = (
      await knex('analytics_live')
        .where('store_id', store.id)
        .select(knex.raw("to_char(day, 'YYYY-MM-DD') as d"))
    ).map((r: { d: string }) => r.d);
    expect(live).to.include(new Date(today).toISOString().slice(0, 10));
    expect(live.filter((d) => final.includes(d))).to.deep.equal([]);
    expect(
      await knex('analytics_live_visitors').where('store_id', store.id).whereIn('day', final),
    ).to.deep.equal([]);
  });
});
