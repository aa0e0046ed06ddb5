import type { JobsOptions } from 'bullmq';
import type { Knex } from 'knex';
import { enqueue, Queues } from '../../../queues';
import { stageJob, StagedJob } from '../../../queues/outbox';

/**
 * Events a store can subscribe its webhook endpoints to. `order.*`, `subscription.*`, `refund.*` and
 * `license.*` subscribe to every event of that family. `refund.created` when a refund is asked for; `refund.succeeded` once the money
 * went back (at once for a manual refund); `refund.failed` when the provider refused it.
 */
export const MERCHANT_EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.status_changed',
  'license.revoked',
  'subscription.created',
  'subscription.cancelled',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.renewal_link_sent',
  'subscription.updated',
  'subscription.expired',
] as const;
export type MerchantEventType = (typeof MERCHANT_EVENT_TYPES)[number];
/** Every event of a family: `order.*`, `subscription.*`, `refund.*`, `license.*`. */
export const EVENT_WILDCARDS = ['order.*', 'subscription.*', 'refund.*', 'license.*'] as const;
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...MERCHANT_EVENT_TYPES, ...EVENT_WILDCARDS];

export interface MerchantEvent {
  /** Deterministic, so the same fact emitted twice is delivered once: "order.paid:42". */
  id: string;
  type: MerchantEventType;
  data: Record<string, unknown>;
}

/** Queue options of a delivery: ~a day of retries (42 s doubling, 12 attempts: about 24 h in all). */
export const DELIVERY_ATTEMPTS = 12;

/**
 * Writes one delivery row per endpoint of the store that wants this event, inside the caller's
 * transaction when it passes one. The unique (endpoint_id, event_id) makes a repeat write nothing.
 * Returns the ids of the new deliveries: the caller stages their jobs in the same transaction (stageDeliveries) or enqueues them (dispatchDeliveries) once committed.
 */
export async function recordMerchantEvent(
  knex: Knex,
  storeId: number,
  event: MerchantEvent,
  now: Date = new Date(),
): Promise<number[]> {
  const payload = {
    id: event.id,
    type: event.type,
    created_at: now.toISOString(),
    store_id: storeId,
    data: event.data,
  };
  const { rows } = await knex.raw<{ rows: { id: number }[] }>(
    `insert into merchant_webhook_deliveries (store_id, endpoint_id, event_id, event_type, payload, created_at)
     select e.store_id, e.id, ?, ?, ?::jsonb, ?
       from merchant_webhook_endpoints e
      where e.store_id = ?
        and (? = any(e.events) or split_part(?, '.', 1) || '.*' = any(e.events))
     on conflict (endpoint_id, event_id) do nothing
     returning id`,
    [event.id, event.type, JSON.stringify(payload), now, storeId, event.type, event.type],
  );
  return rows.map((r) => Number(r.id));
}

/** A delivery's job options: the job id is the delivery id, so enqueuing twice sends once. */
function deliveryJobOptions(
  deps: { config: { merchantWebhookRetryDelayMs: number } },
  deliveryId: number,
): JobsOptions & { jobId: string } {
  return {
    jobId: `merchant-webhook-${deliveryId}`,
    attempts: DELIVERY_ATTEMPTS,
    backoff: { type: 'exponential', delay: deps.config.merchantWebhookRetryDelayMs },
  };
}

/** Enqueues deliveries; the job id is the delivery id, so enqueuing twice sends once. */
export async function dispatchDeliveries(
  deps: { queues: Queues; config: { merchantWebhookRetryDelayMs: number } },
  deliveryIds: readonly number[],
): Promise<void> {
  for (const deliveryId of deliveryIds) {
    await enqueue(deps.queues, 'merchant-webhooks', { deliveryId }, deliveryJobOptions(deps, deliveryId));
  }
}

/** Stages the deliveries' jobs in the transaction that recorded them (shared/queues/outbox.ts). */
export async function stageDeliveries(
  trx: Knex.Transaction,
  deps: { config: { merchantWebhookRetryDelayMs: number } },
  deliveryIds: readonly number[],
): Promise<StagedJob[]> {
  const staged: StagedJob[] = [];
  for (const deliveryId of deliveryIds) {
    staged.push(
      await stageJob(trx, 'merchant-webhooks', { deliveryId }, deliveryJobOptions(deps, deliveryId)),
    );
  }
  return staged;
}

/** Records and dispatches at once, for callers outside a transaction. Never fails the caller's work. */
export async function emitMerchantEvent(
  deps: {
    knex: Knex;
    queues: Queues;
    config: { merchantWebhookRetryDelayMs: number };
    logger: { error(o: object, m: string): void };
  },
  storeId: number,
  event: MerchantEvent,
): Promise<void> {
  try {
    await dispatchDeliveries(deps, await recordMerchantEvent(deps.knex, storeId, event));
  } catch (err) {
    deps.logger.error({ err, storeId, eventId: event.id }, 'could not emit a merchant webhook event');
  }
}
