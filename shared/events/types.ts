import type { MerchantEventType } from '../services/webhooks/events';
import type { SubscriptionMessageEvent } from '../services/subscriptions/message-job';

/**
 * What can happen on the platform that something else follows (docs/webhooks.md lists the merchant
 * side): each is emitted once, through a unit of work's `emit`, and what follows it is declared in
 * subscribers.ts.
 */
export type EventType = MerchantEventType;

/** The events of a subscription's life after it started. */
export type SubscriptionEventType =
  | 'subscription.renewed'
  | 'subscription.payment_failed'
  | 'subscription.renewal_link_sent'
  | 'subscription.updated'
  | 'subscription.expired'
  | 'subscription.cancelled';

/**
 * A subscription event's facts: `message`, the buyer's message that comes with it (subscriptions/message-job.ts:
 * its job id names the subscription, message, renewal and attempt), when the emitter tells the buyer.
 */
export interface SubscriptionFacts {
  message?: { event: SubscriptionMessageEvent; renewalId: number | null; attempt: number };
}

/** What subscribers need of an event beyond its payload; never sent to anyone. */
export interface EventFacts {
  /** `auditId`: the order_status_events row; `fulfil`: the fulfilment job the change calls for. */
  'order.status_changed': { auditId: number; fulfil?: 'paid' | 'completed' };
  'subscription.renewed': SubscriptionFacts;
  'subscription.payment_failed': SubscriptionFacts;
  'subscription.renewal_link_sent': SubscriptionFacts;
  'subscription.updated': SubscriptionFacts;
  'subscription.expired': SubscriptionFacts;
  'subscription.cancelled': SubscriptionFacts;
}

export type FactsOf<T extends EventType> = T extends keyof EventFacts ? EventFacts[T] : undefined;

/** One event, as a writer emits it inside its unit of work. */
export type PlatformEvent = {
  [T in EventType]: {
    readonly type: T;
    /** Deterministic, so the same fact emitted twice is followed once: "order.paid:42". */
    readonly id: string;
    readonly storeId: number;
    /** The webhook payload's `data` (api/openapi/webhooks.ts). */
    readonly data: Record<string, unknown>;
    /** When it happened; default now. */
    readonly at?: Date;
    readonly facts?: FactsOf<T>;
  };
}[EventType];

export type EventOf<T extends EventType> = Extract<PlatformEvent, { type: T }>;
