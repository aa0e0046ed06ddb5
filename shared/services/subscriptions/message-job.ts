import type { JobPayloads } from '../../queues';

/** What the buyer is told about their subscription, one message per event, period and attempt. */
export type SubscriptionMessageEvent =
  | 'renewed'
  | 'payment_failed'
  | 'renewal_link'
  | 'expired'
  | 'cancelled'
  /** A price rise announced (`attempt` carries the subscription_price_notices row). */
  | 'price_rise';

/** The `messages` job of one subscription message (enqueued, or staged in the outbox with a change). */
export function messageJob(
  subscriptionId: number,
  event: SubscriptionMessageEvent,
  renewalId: number | null,
  attempt: number,
): {
  data: Extract<JobPayloads['messages'], { kind: 'subscription' }>;
  opts: { jobId: string };
} {
  return {
    data: { kind: 'subscription', subscriptionId, event, renewalId, attempt },
    opts: { jobId: messageKey(subscriptionId, event, renewalId, attempt) },
  };
}

export function messageKey(
  subscriptionId: number,
  event: SubscriptionMessageEvent,
  renewalId: number | null,
  attempt: number,
): string {
  return `subscription-${subscriptionId}-${event}-${renewalId ?? 0}-${attempt}`;
}
