import { JobsOptions, Queue, QueueOptions } from 'bullmq';
import type { RedisClient } from '../redis';

/**
 * Every queue of the platform, with its typed payload. Payloads carry ids, never personal data or secrets
 * (an OTP job names the session and code version; the worker reads the encrypted code from Postgres).
 */
export interface JobPayloads {
  /** Deliver the current OTP code of a session: WhatsApp with SMS fallback at start, SMS only on resend. */
  /** `locale`: the language of the message (absent in jobs written before it existed: English). */
  otp: {
    otpSessionId: number;
    codeVersion: number;
    route: 'whatsapp_first' | 'sms_only';
    locale?: 'ar' | 'en';
  };
  /** Customer notifications other than OTP (e.g. delivered code keys). */
  messages:
    | { kind: 'order_delivery'; orderId: number }
    /** The buyer's "send again" from their account: the order's goods once more, under its own key. */
    | { kind: 'order_resend'; orderId: number; request: string }
    /** A resend of the delivery by message, from the dashboard (shared/services/fulfilment/resend.ts). */
    | { kind: 'delivery_resend'; orderId: number; key: string }
    | { kind: 'refund'; refundId: number }
    /** An unpaid checkout's one reminder (shared/services/growth/abandoned.ts). */
    | { kind: 'checkout_reminder'; reminderId: number }
    /** The merchant's answer to a key replacement claim (shared/services/fraud/claims.ts). */
    | { kind: 'key_claim'; claimId: number }
    /** The store owners' notice of a new paid order (shared/services/notices/order-notice.ts). */
    | { kind: 'order_notice'; orderId: number }
    | {
        kind: 'subscription';
        subscriptionId: number;
        event: 'renewed' | 'payment_failed' | 'renewal_link' | 'expired' | 'cancelled' | 'price_rise';
        renewalId: number | null;
        attempt: number;
      };
  /** One buyer e-mail (a row of `emails`): render, attach, send over SMTP or to the outbox. */
  emails: { emailId: number };
  /** A subscription's renewal: charge the saved card or send the renewal link (one period, one charge). */
  subscriptions: { subscriptionId: number; periodStart: string; attempt: number };
  /**
   * Provider work: create the hosted payment, process a stored webhook event, re-check a payment, or send
   * a refund to the provider that took the payment.
   */
  payments:
    | { kind: 'initiate'; paymentId: number }
    | { kind: 'refund'; refundId: number }
    | { kind: 'webhook'; webhookEventId: number }
    | { kind: 'reconcile'; paymentId: number; reason: 'webhook' | 'sweep' | 'return' };
  /** Analytics events accepted by the API, written to Postgres in batches. */
  analytics: { storeId: number; receivedAt: string; events: Record<string, unknown>[] };
  /** Order lifecycle events that drive fulfilment. */
  fulfilment: { orderId: number; event: 'created' | 'paid' | 'completed' | 'cancelled' | 'refunded' };
  /** License generation and expiry. */
  licenses: { kind: 'generate'; orderItemId: number } | { kind: 'expire'; before: string };
  /** FiveM command queue fulfilment for one order. */
  fivem: { orderId: number };
  /** Periodic housekeeping enqueued by the scheduler. */
  maintenance: { task: MaintenanceTask; tick: string };
  /** One signed webhook delivery to a merchant's endpoint (row in merchant_webhook_deliveries). */
  'merchant-webhooks': { deliveryId: number };
}

export type QueueName = keyof JobPayloads;
export const QUEUE_NAMES: readonly QueueName[] = [
  'otp',
  'messages',
  'emails',
  'payments',
  'analytics',
  'fulfilment',
  'licenses',
  'fivem',
  'maintenance',
  'merchant-webhooks',
  'subscriptions',
];

export type MaintenanceTask =
  | 'expire-checkouts'
  | 'purge-otp-sessions'
  | 'sweep-payments'
  | 'expire-licenses'
  | 'purge-idempotency'
  | 'sweep-webhooks'
  | 'renew-subscriptions'
  | 'relay-outbox'
  | 'expire-manual-orders'
  | 'analytics-partitions'
  | 'analytics-rollup'
  | 'analytics-retention'
  | 'purge-dashboard-sessions'
  | 'order-rollups'
  | 'verify-domains'
  | 'report-einvoices'
  | 'abandoned-checkouts';

/**
 * Retries with exponential back-off; completed jobs kept a day (so deterministic ids dedupe), at most
 * 1,000 per queue; failed ones two weeks, at most 10,000 per queue (docs/runbook.md, "Job retention").
 */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 1_000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 10_000 },
};

type Retention = Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>;
const HOUR = 3600;
const DAY = 24 * HOUR;
/** What most queues keep: DEFAULT_JOB_OPTIONS' retention. */
const STANDARD: Retention = {
  removeOnComplete: { age: DAY, count: 1_000 },
  removeOnFail: { age: 14 * DAY, count: 10_000 },
};

/**
 * Finished jobs kept per queue, each bounded by age and by count, so Redis holds a bounded number of jobs
 * whatever the traffic (docs/runbook.md, "Job retention"):
 * - `analytics`: a job carries the events a web process accepted for one store within a few milliseconds
 *   (up to about 300, each with up to 2 KB of properties; shared/services/analytics/batcher.ts) and a random id
 *   nothing dedupes on: once written to Postgres its copy serves no one, so only the last 100 completed
 *   (an hour at most) stay for an operator to look at; failed ones a week, at most 1,000.
 * - `otp`: a code is worth nothing once its session expired (minutes): an hour of completed jobs covers
 *   the dedupe of `otp-<session>-<version>`, and a failed send is kept a day for the operator to see why.
 * - `maintenance`: the scheduler adds a few thousand jobs a day; the next tick does a failed one's work
 *   again, so failures are kept a week, at most 1,000.
 * - the others: completed a day, at most 1,000 (their deterministic ids dedupe a repeat within that day);
 *   failed two weeks, at most 10,000, for the operator to retry from the dashboard.
 */
export const JOB_RETENTION: Readonly<Record<QueueName, Retention>> = {
  otp: { removeOnComplete: { age: HOUR, count: 1_000 }, removeOnFail: { age: DAY, count: 1_000 } },
  messages: STANDARD,
  emails: STANDARD,
  payments: STANDARD,
  analytics: {
    removeOnComplete: { age: HOUR, count: 100 },
    removeOnFail: { age: 7 * DAY, count: 1_000 },
  },
  fulfilment: STANDARD,
  licenses: STANDARD,
  fivem: STANDARD,
  maintenance: { removeOnComplete: { age: DAY, count: 1_000 }, removeOnFail: { age: 7 * DAY, count: 1_000 } },
  'merchant-webhooks': STANDARD,
  subscriptions: STANDARD,
};

export type TypedQueue<N extends QueueName> = NamespacedQueue<JobPayloads[N]>;
export type Queues = { [N in QueueName]: TypedQueue<N> };

/**
 * A queue whose custom job ids carry the database's own id (`platform_settings.instance_id`),
 * item 11. Deterministic ids (`order-created-42`) make a repeat harmless, but only if they are unique to
 * the row they serve: a database created afresh beside an old Redis (same QUEUE_PREFIX) starts its ids at
 * 1 again, and BullMQ would silently skip every job whose id an old completed job still holds. With the
 * namespace, `order-created-42` of this database is `<instance>.order-created-42` in Redis.
 *
 * Callers keep using the plain ids: `add`, `getJob`, `getJobState` and `remove` translate. Ids BullMQ generates itself (integers)
 * are left alone, as are ids that already carry the namespace.
 */
export class NamespacedQueue<D> extends Queue<D, unknown, string> {
  constructor(
    name: string,
    opts: QueueOptions,
    readonly namespace: string,
  ) {
    super(name, opts);
  }

  /** The id stored in Redis for a caller's `jobId`. */
  jobIdFor(jobId: string): string {
    if (/^\d+$/.test(jobId) || jobId.startsWith(`${this.namespace}.`)) return jobId;
    return `${this.namespace}.${jobId}`;
  }

  override add(...[name, data, opts]: Parameters<Queue<D, unknown, string>['add']>) {
    return super.add(name, data, opts?.jobId ? { ...opts, jobId: this.jobIdFor(opts.jobId) } : opts);
  }

  override addBulk(jobs: Parameters<Queue<D, unknown, string>['addBulk']>[0]) {
    return super.addBulk(
      jobs.map((job) =>
        job.opts?.jobId ? { ...job, opts: { ...job.opts, jobId: this.jobIdFor(job.opts.jobId) } } : job,
      ),
    );
  }

  override getJob(jobId: string) {
    return super.getJob(this.jobIdFor(jobId));
  }

  override getJobState(jobId: string) {
    return super.getJobState(this.jobIdFor(jobId));
  }

  override remove(jobId: string, opts?: { removeChildren?: boolean }) {
    return super.remove(this.jobIdFor(jobId), opts);
  }
}

/**
 * The `prefix` option of every BullMQ Queue, Worker, QueueEvents and FlowProducer of the platform, derived
 * from QUEUE_PREFIX here and nowhere else: `commerce` gives `commerce:{commerce}`, so a queue's keys read
 * `commerce:{commerce}:fulfilment:wait`.
 *
 * - Every key still starts with QUEUE_PREFIX (docs/operations.md: two instances share one Redis, and a
 *   test run or benchmark deletes its keys by that prefix).
 * - The part in braces is a Redis Cluster hash tag: a key's slot is computed from it alone, so every key
 *   of every queue of one instance lands in one slot. BullMQ's scripts touch many keys of a queue at once
 *   (and a flow, several queues), which Redis Cluster allows only within one slot (BullMQ's docs,
 *   patterns/redis-cluster). The tag is the prefix itself, not a constant, so two instances sharing one
 *   cluster land in different slots, usually on different nodes.
 *
 * Keys written before this layout (`commerce:fulfilment:wait`) are not read any more: drain the queues
 * before upgrading (docs/scaling.md).
 */
export function bullPrefix(queuePrefix: string): string {
  // QUEUE_PREFIX cannot hold braces (shared/config.ts), so the tag is the first and only one in the key.
  if (/[{}]/.test(queuePrefix)) throw new Error(`Invalid QUEUE_PREFIX for a hash tag: ${queuePrefix}`);
  return `${queuePrefix}:{${queuePrefix}}`;
}

/**
 * `queuePrefix`: QUEUE_PREFIX (the BullMQ prefix is derived by bullPrefix). `namespace`: this database's
 * instance id (see NamespacedQueue); BullMQ refuses ':' in ids.
 */
export function createQueues(connection: RedisClient, queuePrefix: string, namespace: string): Queues {
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) throw new Error(`Invalid job id namespace: ${namespace}`);
  const prefix = bullPrefix(queuePrefix);
  const entries = QUEUE_NAMES.map((name) => [
    name,
    new NamespacedQueue(
      name,
      { connection, prefix, defaultJobOptions: { ...DEFAULT_JOB_OPTIONS, ...JOB_RETENTION[name] } },
      namespace,
    ),
  ]);
  return Object.fromEntries(entries) as Queues;
}

/** Adds a job; `jobId` makes a repeat harmless (BullMQ ignores an id it already holds). */
export async function enqueue<N extends QueueName>(
  queues: Queues,
  name: N,
  data: JobPayloads[N],
  opts: JobsOptions = {},
): Promise<void> {
  // The map above ties each name to its payload type; the BullMQ call itself is not generic over that map.
  const queue = queues[name] as unknown as Queue<unknown, unknown, string>;
  await queue.add(name, data, opts);
}

export async function closeQueues(queues: Queues): Promise<void> {
  await Promise.allSettled(Object.values(queues).map((q) => q.close()));
}
