import { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/**
 * Every queue of the platform, with its typed payload. Payloads carry ids, never personal data or secrets
 * (an OTP job names the session and code version; the worker reads the encrypted code from Postgres).
 */
export interface JobPayloads {
  /** Deliver the current OTP code of a session: WhatsApp with SMS fallback at start, SMS only on resend. */
  otp: { otpSessionId: number; codeVersion: number; route: 'whatsapp_first' | 'sms_only' };
  /** Customer notifications other than OTP (e.g. delivered code keys). */
  messages: { kind: 'order_delivery'; orderId: number };
  /** Provider work: create the hosted payment, process a stored webhook event, or re-check a payment. */
  payments:
    | { kind: 'initiate'; paymentId: number }
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
  'payments',
  'analytics',
  'fulfilment',
  'licenses',
  'fivem',
  'maintenance',
  'merchant-webhooks',
];

export type MaintenanceTask =
  'expire-checkouts' | 'purge-otp-sessions' | 'sweep-payments' | 'expire-licenses' | 'purge-idempotency';

/** Retries with exponential back-off; completed jobs kept a day (so deterministic ids dedupe), failed ones two weeks. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 5_000 },
  removeOnFail: { age: 14 * 24 * 3600 },
};

export type TypedQueue<N extends QueueName> = Queue<JobPayloads[N], unknown, string>;
export type Queues = { [N in QueueName]: TypedQueue<N> };

export function createQueues(connection: Redis, prefix: string): Queues {
  const entries = QUEUE_NAMES.map((name) => [
    name,
    new Queue(name, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS }),
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
