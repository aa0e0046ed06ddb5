import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { MaintenanceTask } from '../../../shared/queues';
import { MAINTENANCE_SCHEDULE, Scheduler, tickJobId, tickStart } from '../../../shared/scheduler';
import { isolatedDeps } from '../../helpers/deps';
import { waitFor } from './support';

describe('scheduler', () => {
  it('names a job after its task and the minute of the tick, whatever the second it fired at', () => {
    const early = new Date('2026-03-01T10:05:00.004Z');
    const late = new Date('2026-03-01T10:05:59.999Z');
    expect(tickStart(late).toISOString()).to.equal('2026-03-01T10:05:00.000Z');
    expect(tickJobId('expire-checkouts', early)).to.equal('expire-checkouts@2026-03-01T10.05Z');
    expect(tickJobId('expire-checkouts', late)).to.equal(tickJobId('expire-checkouts', early));
    expect(tickJobId('expire-checkouts', new Date('2026-03-01T10:06:00.000Z'))).to.not.equal(
      tickJobId('expire-checkouts', early),
    );
  });

  it('schedules expire-checkouts every minute, sweep-payments every 2 minutes, renewals every 5, expire-manual-orders every 10, order rollups every minute, pending domains every 5, e-invoice reporting every 5, abandoned-checkout reminders every 5, analytics retention daily and the other tasks hourly', () => {
    expect(MAINTENANCE_SCHEDULE.map((e) => [e.task, e.cron])).to.deep.equal([
      ['expire-checkouts', '* * * * *'],
      ['sweep-payments', '*/2 * * * *'],
      ['expire-licenses', '0 * * * *'],
      ['purge-otp-sessions', '20 * * * *'],
      ['purge-idempotency', '40 * * * *'],
      ['sweep-webhooks', '* * * * *'],
      ['renew-subscriptions', '*/5 * * * *'],
      ['relay-outbox', '* * * * *'],
      ['expire-manual-orders', '5-59/10 * * * *'],
      ['analytics-partitions', '50 * * * *'],
      ['analytics-rollup', '15 * * * *'],
      ['analytics-retention', '30 3 * * *'],
      ['purge-dashboard-sessions', '55 * * * *'],
      ['order-rollups', '* * * * *'],
      ['verify-domains', '3-59/5 * * * *'],
      ['report-einvoices', '1-59/5 * * * *'],
      ['abandoned-checkouts', '*/5 * * * *'],
    ]);
  });

  describe('two schedulers on one Redis prefix', () => {
    let first: Deps;
    let second: Deps;

    beforeEach(async () => {
      first = await isolatedDeps();
      // Separate connections, same prefix: what two scheduler processes of one deployment share.
      second = await isolatedDeps({ QUEUE_PREFIX: first.config.queuePrefix });
    });

    async function jobIds(): Promise<string[]> {
      const jobs = await first.queues.maintenance.getJobs([
        'waiting',
        'delayed',
        'active',
        'completed',
        'failed',
      ]);
      return jobs.map((j) => String(j.id)).sort();
    }

    it('adds exactly one job per task per tick when both tick at once', async () => {
      const a = new Scheduler(first);
      const b = new Scheduler(second);
      const tasks: MaintenanceTask[] = MAINTENANCE_SCHEDULE.map((e) => e.task);
      // The two timers fire a few milliseconds apart within the same minute.
      const at = new Date('2026-03-01T10:05:00.012Z');
      const atB = new Date('2026-03-01T10:05:00.047Z');

      for (let round = 0; round < 3; round += 1) {
        await Promise.all(tasks.flatMap((task) => [a.tick(task, at), b.tick(task, atB)]));
      }
      // Stored under this database's namespace (shared/queues: NamespacedQueue).
      const expected = tasks.map((task) => first.queues.maintenance.jobIdFor(tickJobId(task, at))).sort();
      expect(await jobIds()).to.deep.equal(expected);
      expect(await first.queues.maintenance.getJobCounts('waiting')).to.deep.equal({ waiting: tasks.length });

      const job = await first.queues.maintenance.getJob(tickJobId('expire-checkouts', at));
      expect(job?.data).to.deep.equal({ task: 'expire-checkouts', tick: '2026-03-01T10:05:00.000Z' });

      // The next minute is a new tick, so a new job.
      const next = new Date('2026-03-01T10:06:00.020Z');
      await Promise.all([a.tick('expire-checkouts', next), b.tick('expire-checkouts', next)]);
      expect(await jobIds()).to.deep.equal(
        [...expected, first.queues.maintenance.jobIdFor(tickJobId('expire-checkouts', next))].sort(),
      );
    });

    it('enqueues from its cron timers once started and stops them on stop()', async () => {
      let ticks = 0;
      class CountingScheduler extends Scheduler {
        override async tick(task: MaintenanceTask, date: Date): Promise<string> {
          ticks += 1;
          return super.tick(task, date);
        }
      }
      const scheduler = new CountingScheduler(first, [{ task: 'purge-idempotency', cron: '* * * * * *' }]);
      scheduler.start();
      try {
        const ids = await waitFor(
          'a cron tick to enqueue a job',
          async () => {
            const found = await jobIds();
            return found.length > 0 ? found : undefined;
          },
          3_000,
        );
        expect(ids[0]).to.match(/^[0-9a-f]+\.purge-idempotency@\d{4}-\d{2}-\d{2}T\d{2}\.\d{2}Z$/);
      } finally {
        await scheduler.stop();
      }
      const ticksAtStop = ticks;
      expect(ticksAtStop).to.be.at.least(1);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(ticks).to.equal(ticksAtStop);
    });
  });
});
