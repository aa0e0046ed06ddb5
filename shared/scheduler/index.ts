import cron, { ScheduledTask } from 'node-cron';
import type { Logger } from '../logger';
import { enqueue, MaintenanceTask, Queues } from '../queues';

export interface ScheduleEntry {
  task: MaintenanceTask;
  /** Five-field cron expression, evaluated in UTC. */
  cron: string;
}

/**
 * What the scheduler enqueues and when. The hourly tasks are spread over the hour so they do not start
 * together.
 */
export const MAINTENANCE_SCHEDULE: readonly ScheduleEntry[] = [
  { task: 'expire-checkouts', cron: '* * * * *' },
  // Payments whose webhook never came are asked about every 2 minutes.
  { task: 'sweep-payments', cron: '*/2 * * * *' },
  // Spec, License states: expiry is checked hourly.
  { task: 'expire-licenses', cron: '0 * * * *' },
  { task: 'purge-otp-sessions', cron: '20 * * * *' },
  { task: 'purge-idempotency', cron: '40 * * * *' },
  // Webhooks stored while Redis could not take their job (docs/outages.md).
  { task: 'sweep-webhooks', cron: '* * * * *' },
  // Subscriptions: renewals due (a card is charged within the hour before its period ends, a renewal
  // link goes out three days before), dunning retries, and periods that ran out.
  { task: 'renew-subscriptions', cron: '*/5 * * * *' },
  // Jobs of committed changes that Redis could not take at the time (shared/queues/outbox.ts).
  { task: 'relay-outbox', cron: '* * * * *' },
  // Bank transfer and manual PayPal orders past their store's payment deadline (days): every 10 minutes.
  { task: 'expire-manual-orders', cron: '5-59/10 * * * *' },
  // Analytics (docs/scaling.md, "Analytics storage"): day partitions kept 7 days ahead, finished days
  // rolled up, raw events past ANALYTICS_RETENTION_DAYS dropped by whole partition once a day.
  { task: 'analytics-partitions', cron: '50 * * * *' },
  { task: 'analytics-rollup', cron: '15 * * * *' },
  { task: 'analytics-retention', cron: '30 3 * * *' },
  // Dashboard sessions a week past their expiry or sign-out.
  { task: 'purge-dashboard-sessions', cron: '55 * * * *' },
  // Merchant order rollups: the deltas the order triggers appended, folded (merchant/rollups.ts).
  { task: 'order-rollups', cron: '* * * * *' },
  // Pending store domains: their DNS TXT records looked up every 5 minutes (docs/merchant.md, "Store
  // domains"); claims never proven are dropped after a week.
  { task: 'verify-domains', cron: '3-59/5 * * * *' },
  // E-invoicing phase 2 (docs/einvoicing.md): documents due are reported to ZATCA every 5 minutes.
  { task: 'report-einvoices', cron: '1-59/5 * * * *' },
  // Unpaid checkouts past their store's delay get their one reminder (docs/growth.md).
  { task: 'abandoned-checkouts', cron: '*/5 * * * *' },
];

/** The scheduled minute a tick belongs to, whatever the millisecond the timer actually fired at. */
export function tickStart(date: Date): Date {
  const d = new Date(date.getTime());
  d.setUTCSeconds(0, 0);
  return d;
}

/**
 * One id per task per tick, so schedulers running side by side add one job: BullMQ ignores an id it
 * already holds (completed jobs are kept a day). BullMQ refuses ':' in custom ids, hence `.` in the time.
 */
export function tickJobId(task: MaintenanceTask, date: Date): string {
  const minute = tickStart(date).toISOString().slice(0, 16).replace(':', '.');
  return `${task}@${minute}Z`;
}

/** Only enqueues: the work itself runs on the worker, where retries and the dashboard apply. */
export class Scheduler {
  private readonly tasks: ScheduledTask[] = [];
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: { queues: Queues; logger: Logger },
    readonly schedule: readonly ScheduleEntry[] = MAINTENANCE_SCHEDULE,
  ) {}

  /** Enqueues `task` for the tick `date` falls in; returns the job id (the same for every scheduler). */
  async tick(task: MaintenanceTask, date: Date): Promise<string> {
    const jobId = tickJobId(task, date);
    // A tick writes nothing: no transaction exists; every scheduler adds the same job id.
    await enqueue(this.deps.queues, 'maintenance', { task, tick: tickStart(date).toISOString() }, { jobId });
    this.deps.logger.debug({ task, jobId }, 'maintenance job enqueued');
    return jobId;
  }

  start(): void {
    const logger = this.deps.logger;
    const cronLogger = {
      info: (message: string) => logger.debug({ source: 'node-cron' }, message),
      warn: (message: string) => logger.warn({ source: 'node-cron' }, message),
      error: (message: string | Error, err?: Error) =>
        logger.error({ source: 'node-cron', error: (err ?? message).toString() }, 'cron error'),
      debug: (message: string | Error) => logger.debug({ source: 'node-cron' }, String(message)),
    };
    for (const entry of this.schedule) {
      const scheduled = cron.schedule(
        entry.cron,
        (ctx) => {
          const run = this.tick(entry.task, ctx.date).catch((err: Error) =>
            // The next tick enqueues again; a missed cleanup tick only delays the work.
            logger.error({ task: entry.task, error: err.message }, 'could not enqueue maintenance job'),
          );
          this.pending.add(run);
          void run.finally(() => this.pending.delete(run));
          return run;
        },
        { name: entry.task, timezone: 'UTC', noOverlap: true, logger: cronLogger },
      );
      this.tasks.push(scheduled);
    }
  }

  /** Stops every cron task and waits for enqueues already under way. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.tasks.map((t) => t.destroy()));
    this.tasks.length = 0;
    await Promise.allSettled([...this.pending]);
  }
}
