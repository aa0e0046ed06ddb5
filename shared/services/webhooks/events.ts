import type { JobsOptions } from 'bullmq';
import { enqueue, Queues } from '../../queues';

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
  // Fraud controls (docs/fraud.md): a provider's dispute (chargeback) of a paid order.
  'order.disputed',
  // Growth (docs/growth.md): a reminded checkout paid; a creator's commission earned or taken back.
  'checkout.recovered',
  'creator.commission',
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

/** A delivery's job options: the job id is the delivery id, so enqueuing twice sends once. */
export function deliveryJobOptions(
  deps: { config: { merchantWebhookRetryDelayMs: number } },
  deliveryId: number,
): JobsOptions & { jobId: string } {
  return {
    jobId: `merchant-webhook-${deliveryId}`,
    attempts: DELIVERY_ATTEMPTS,
    backoff: { type: 'exponential', delay: deps.config.merchantWebhookRetryDelayMs },
  };
}

/**
 * Enqueues deliveries already recorded and committed (the test event, a retry from the dashboard); the job
 * id is the delivery id, so enqueuing twice sends once. A change emits its events through its unit of
 * work instead (shared/events/emit.ts).
 */
export async function dispatchDeliveries(
  deps: { queues: Queues; config: { merchantWebhookRetryDelayMs: number } },
  deliveryIds: readonly number[],
): Promise<void> {
  for (const deliveryId of deliveryIds) {
    // The deliveries are committed already: no transaction exists any more to stage them in.
    await enqueue(deps.queues, 'merchant-webhooks', { deliveryId }, deliveryJobOptions(deps, deliveryId));
  }
}
