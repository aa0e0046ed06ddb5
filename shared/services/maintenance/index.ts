import { remindAbandonedCheckouts } from '../growth/abandoned';
import type { TxDeps } from '../../unit-of-work';
import type { Cipher } from '../../crypto';
import { reportEinvoices } from '../einvoicing/reporting';
import { noteStockChangedOn } from '../catalogue/cache';
import type { Knex } from 'knex';
import { relayOutbox } from '../../queues/outbox';
import type { MaintenanceTask, Queues } from '../../queues';
import { expireManualOrders } from '../payments/manual-expiry';
import type { ChangeStatusDeps } from '../orders/change-status';
import { sweepPayments } from '../payments/sweep';
import { sweepWebhooks } from '../payments/webhooks';
import { purgeDashboardSessions } from '../staff/sessions';
import { purgeBuyerSessions } from '../account/sessions';
import { renewSubscriptionsTask } from '../subscriptions/due';
import { dropExpiredEvents, ensurePartitions } from '../analytics/partitions';
import { rollupAnalytics } from '../analytics/rollups';
import { compactOrderRollups } from '../statistics/rollups';
import { verifyPendingDomains } from '../stores/domains';
import { systemTxtResolver, type TxtResolver } from '../../dns';

/**
 * Periodic housekeeping run by the `maintenance` queue. Each task is one bounded set-based statement
 * repeated until nothing is left, so it is safe to run twice (or at once on two workers): a second run
 * finds no rows. Each reports the rows it changed.
 */

/** Rows touched per statement: keeps locks and WAL per transaction small when a backlog has built up. */
const BATCH = 1_000;

/** OTP sessions stay a day past expiry so a late verify still answers SESSION_EXPIRED, not "not found". */
const OTP_SESSION_RETENTION_MS = 24 * 3600 * 1000;

/** ANALYTICS_RETENTION_DAYS when the task runs without the process configuration. */
const DEFAULT_ANALYTICS_RETENTION_DAYS = 90;

/** What a task did, by kind of change (e.g. `{expired: 3, releasedCodes: 5}`), for the job's log line. */
export type MaintenanceResult = Record<string, number>;

/** Runs `step` until a batch comes back short; `step` reports its batch-limited count first. */
async function repeatUntilDone(step: () => Promise<[number, MaintenanceResult]>): Promise<MaintenanceResult> {
  const total: MaintenanceResult = {};
  for (;;) {
    const [batchCount, counts] = await step();
    for (const [key, n] of Object.entries(counts)) total[key] = (total[key] ?? 0) + n;
    if (batchCount < BATCH) return total;
  }
}

const counted =
  (key: string) =>
  (n: number): [number, MaintenanceResult] => [n, { [key]: n }];

export async function purgeOtpSessions(knex: Knex, now: Date = new Date()): Promise<MaintenanceResult> {
  const cutoff = new Date(now.getTime() - OTP_SESSION_RETENTION_MS);
  return repeatUntilDone(() =>
    knex('otp_sessions')
      .whereIn('id', knex('otp_sessions').select('id').where('expires_at', '<', cutoff).limit(BATCH))
      .delete()
      .then(counted('deleted')),
  );
}

/** Spec, License states: an active license whose expiry date has passed becomes expired (checked hourly). */
export async function expireLicenses(knex: Knex, now: Date = new Date()): Promise<MaintenanceResult> {
  return repeatUntilDone(() =>
    knex('licenses')
      .whereIn(
        'id',
        knex('licenses')
          .select('id')
          .where('status', 'active')
          .whereNotNull('expires_at')
          .where('expires_at', '<', now)
          .limit(BATCH),
      )
      // Re-checked here: a license renewed between the select and the update keeps its status.
      .where('status', 'active')
      .where('expires_at', '<', now)
      .update({ status: 'expired', updated_at: now })
      .then(counted('expired')),
  );
}

export async function purgeIdempotency(knex: Knex, now: Date = new Date()): Promise<MaintenanceResult> {
  return repeatUntilDone(() =>
    knex('idempotency_records')
      .whereIn('id', knex('idempotency_records').select('id').where('expires_at', '<', now).limit(BATCH))
      .delete()
      .then(counted('deleted')),
  );
}

/**
 * Unpaid checkouts past their lifetime become expired, and what they held goes back on sale: the code keys
 * they reserved, the units of finite stock taken by a `reserved` checkout (checkout service) and the coupon
 * use a `coupon_reserved` checkout holds. Checkout, keys, stock and coupon uses change in one statement, so
 * nothing is ever left held by an expired checkout.
 *
 * Stock is given back per product with the sum of the due checkouts' quantities (an UPDATE ... FROM
 * touches each product row once, so per-checkout rows would lose all but one). A product made unlimited
 * meanwhile (stock null) stays unlimited.
 * Rows are locked with SKIP LOCKED so a payment confirmation holding a checkout row wins: that checkout
 * is looked at again on the next tick, by which time it is paid and no longer matches.
 */
export async function expireCheckouts(
  _knex: Knex,
  now: Date = new Date(),
  ctx: Pick<MaintenanceContext, 'tx'>,
): Promise<MaintenanceResult> {
  return repeatUntilDone(async () => {
    // One statement in a unit of work: the bump of the stock given back waits for its commit.
    const { rows } = await ctx.tx(async (uow) => {
      const result = await uow.trx.raw<{
        rows: {
          expired: string;
          released: string;
          restocked: string;
          coupon_uses: string;
          products: number[] | null;
        }[];
      }>(
        `with due as (
         select id, product_id, quantity, reserved, coupon_id, coupon_reserved from checkouts
          where status in ('created', 'payment_initiated') and expires_at < :now
          order by id
          limit :batch
          for update skip locked
       ),
       expired as (
         update checkouts c
            set status = 'expired', reserved = false, coupon_reserved = false, updated_at = :now
           from due where c.id = due.id
         returning c.id
       ),
       released as (
         update product_codes pc
            set status = 'available', checkout_id = null
           from expired where pc.checkout_id = expired.id and pc.status = 'reserved'
         returning pc.id, pc.product_id
       ),
       held as (
         -- a checkout's lines (checkout_items) that took stock; a checkout without lines is its own line
         select coalesce(ci.product_id, due.product_id) as product_id,
                sum(coalesce(ci.quantity, due.quantity)) as units
           from due left join checkout_items ci on ci.checkout_id = due.id
          where due.reserved and (ci.id is null or ci.reserved)
          group by 1
       ),
       restocked as (
         update products p
            set stock = p.stock + held.units, updated_at = :now
           from held where p.id = held.product_id and p.stock is not null and p.type <> 'code'
         returning held.units
       ),
       coupon_held as (
         select coupon_id, count(*) as uses from due
          where coupon_reserved and coupon_id is not null group by coupon_id
       ),
       coupons_released as (
         update coupons c
            set reserved_uses = greatest(c.reserved_uses - coupon_held.uses, 0), updated_at = :now
           from coupon_held where c.id = coupon_held.coupon_id
         returning coupon_held.uses
       )
       select (select count(*) from expired) as expired,
              (select count(*) from released) as released,
              (select coalesce(sum(units), 0) from restocked) as restocked,
              (select coalesce(sum(uses), 0) from coupons_released) as coupon_uses,
              array(select product_id from released union select product_id from held) as products`,
        { now, batch: BATCH },
      );
      // The product answers show the stock given back. The checkouts' payment status needs no bump: an
      // unpaid checkout past expires_at already answers 404 by time.
      noteStockChangedOn(uow, result.rows[0]?.products ?? []);
      return result;
    });
    const expired = Number(rows[0]?.expired ?? 0);
    return [
      expired,
      {
        expired,
        releasedCodes: Number(rows[0]?.released ?? 0),
        releasedStock: Number(rows[0]?.restocked ?? 0),
        releasedCouponUses: Number(rows[0]?.coupon_uses ?? 0),
      },
    ];
  });
}

/** What a task may use besides the database: the payments sweep enqueues reconcile jobs. */
export interface MaintenanceContext {
  queues: Queues;
  /** Units of work (`deps.tx`): the tasks that change what a cache shows bump its counters after commit. */
  tx: TxDeps['tx'];
  /**
   * Merchant webhook settings, for tasks that record merchant events (subscriptions ending, manual orders
   * expiring); their deliveries are enqueued with them.
   */
  config?: { merchantWebhookRetryDelayMs: number; analyticsRetentionDays?: number; zatcaApiUrl?: string };
  /** The at-rest cipher: `report-einvoices` opens the stores' signing keys and CSID secrets. */
  cipher?: Cipher;
  /** DNS TXT lookups of `verify-domains` (`deps.resolveTxt`); the system's resolvers when left out. */
  resolveTxt?: TxtResolver;
  /**
   * The process's deps, for tasks that change an order's status: they go through the order lifecycle
   * (shared/services/orders/change-status.ts), which records the status event and stages its webhooks.
   */
  orders?: ChangeStatusDeps & TxDeps;
}

/** What every task is given besides the database, from the process's wiring (`deps`). */
export function maintenanceContext(
  deps: MaintenanceContext & ChangeStatusDeps & { resolveTxt: TxtResolver },
): MaintenanceContext {
  return {
    queues: deps.queues,
    config: deps.config,
    tx: deps.tx,
    resolveTxt: deps.resolveTxt,
    orders: deps,
    cipher: deps.cipher,
  };
}

/** The order lifecycle's deps of a task that changes orders' statuses (the worker's wiring gives them). */
function orderDeps(ctx: MaintenanceContext, task: MaintenanceTask): ChangeStatusDeps & TxDeps {
  if (!ctx.orders) throw new Error(`maintenance task ${task} needs the process's deps (ctx.orders)`);
  return ctx.orders;
}

/** The runner of the task named `name`, or null when there is none (an own key only: never `toString`). */
export function maintenanceRunner(name: string): MaintenanceRunner | null {
  return Object.hasOwn(MAINTENANCE_TASKS, name) ? (MAINTENANCE_TASKS[name as MaintenanceTask] ?? null) : null;
}

export type MaintenanceRunner = (
  knex: Knex,
  now: Date | undefined,
  ctx: MaintenanceContext,
) => Promise<MaintenanceResult>;

/** Every task; a job naming anything else fails as unrecoverable. */
export const MAINTENANCE_TASKS: Readonly<Partial<Record<MaintenanceTask, MaintenanceRunner>>> = {
  'expire-checkouts': expireCheckouts,
  'purge-otp-sessions': purgeOtpSessions,
  'expire-licenses': expireLicenses,
  'purge-idempotency': purgeIdempotency,
  'sweep-payments': sweepPayments,
  'sweep-webhooks': sweepWebhooks,
  'renew-subscriptions': (knex, now, ctx) => renewSubscriptionsTask(knex, now, ctx),
  'relay-outbox': (knex, now, ctx) => relayOutbox(knex, now, ctx),
  'expire-manual-orders': (knex, now, ctx) =>
    expireManualOrders(knex, now, orderDeps(ctx, 'expire-manual-orders')),
  'analytics-partitions': (knex, now) => ensurePartitions(knex, now),
  'analytics-rollup': (knex, now) => rollupAnalytics(knex, now),
  'analytics-retention': (knex, now, ctx) =>
    dropExpiredEvents(
      knex,
      now ?? new Date(),
      ctx.config?.analyticsRetentionDays ?? DEFAULT_ANALYTICS_RETENTION_DAYS,
    ),
  // The buyer's account's sessions and sign-in links go with the dashboard's (docs/account.md).
  'purge-dashboard-sessions': async (knex, now) => {
    const dashboard = await purgeDashboardSessions(knex, now);
    const buyers = await purgeBuyerSessions(knex, now);
    return { deleted: dashboard.deleted + buyers.deleted };
  },
  'order-rollups': (knex) => compactOrderRollups(knex),
  'verify-domains': (knex, now, ctx) =>
    verifyPendingDomains({ knex, tx: ctx.tx, resolveTxt: ctx.resolveTxt ?? systemTxtResolver() }, now),
  'report-einvoices': async (knex, now, ctx) => {
    if (!ctx.cipher) throw new Error('maintenance task report-einvoices needs the platform cipher');
    const r = await reportEinvoices({ knex, cipher: ctx.cipher, zatcaApiUrl: ctx.config?.zatcaApiUrl }, now);
    return { processed: r.reported + r.rejected + r.deferred, ...r };
  },
  'abandoned-checkouts': (knex, now, ctx) => remindAbandonedCheckouts({ knex, tx: ctx.tx }, now),
};
