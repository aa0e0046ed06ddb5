import type { Knex } from 'knex';
import type { JobsOptions } from 'bullmq';
import type { JobPayloads, QueueName } from '../queues';
import { MERCHANT_EVENT_TYPES } from '../services/webhooks/events';
import { refundJobOptions } from '../services/refunds/job';
import { messageJob } from '../services/subscriptions/message-job';
import type { EventOf, EventType, PlatformEvent, SubscriptionEventType } from './types';

/**
 * What happens when something happens: every event type with the subscribers that follow it, declared
 * here and nowhere else. A subscriber runs inside the emitting unit of work's transaction and only writes
 * rows there (a webhook delivery, a job in the outbox: shared/queues/outbox.ts), so a rolled-back change
 * is followed by nothing, and a committed one by each subscriber once: every job it stages has a
 * deterministic id, which the queue dedupes however often the outbox relay hands it over.
 *
 * Adding a follower is one declaration: e-mailing the buyer on `order.paid` is one more entry in that
 * event's list, its `stage` writing the e-mail's job with a key of its own.
 */
export interface SubscriberContext {
  readonly trx: Knex.Transaction;
  readonly at: Date;
  readonly config: EventConfig;
  /** Writes a job into the outbox with the change; dispatched after the commit. */
  stage<N extends QueueName>(
    queue: N,
    data: JobPayloads[N],
    opts: JobsOptions & { jobId: string },
  ): Promise<void>;
  /** Writes the merchant's webhook deliveries of the event and stages their jobs. */
  deliverToMerchant(event: PlatformEvent): Promise<void>;
}

/** What subscribers read of the process's configuration. */
export interface EventConfig {
  merchantWebhookRetryDelayMs: number;
  refundRetryDelayMs: number;
}

export interface Subscriber<T extends EventType> {
  /** What follows the event, in words (the list reads as the answer to "what happens when X happens"). */
  readonly name: string;
  run(ctx: SubscriberContext, event: EventOf<T>): Promise<void>;
}

/** The store's webhook endpoints that want the event get it (docs/webhooks.md): every event has it. */
const merchantWebhook = <T extends EventType>(): Subscriber<T> => ({
  name: 'merchant webhook deliveries (docs/webhooks.md)',
  run: (ctx, event) => ctx.deliverToMerchant(event),
});

const refundToProvider: Subscriber<'refund.created'> = {
  name: 'payments job: send the refund to the provider that took the payment',
  async run(ctx, event) {
    // A manual refund moves no money through a provider: it is recorded succeeded at once.
    if (event.data.kind !== 'provider') return;
    const refundId = Number(event.data.id);
    await ctx.stage(
      'payments',
      { kind: 'refund', refundId },
      refundJobOptions(refundId, ctx.config.refundRetryDelayMs),
    );
  },
};

const refundMessage: Subscriber<'refund.succeeded'> = {
  name: 'buyer message: the money is back',
  async run(ctx, event) {
    const refundId = Number(event.data.id);
    await ctx.stage('messages', { kind: 'refund', refundId }, { jobId: `refund-message-${refundId}` });
  },
};

const fulfilment: Subscriber<'order.status_changed'> = {
  name: 'fulfilment job: deliver (paid) or complete the order, when the change calls for it',
  async run(ctx, event) {
    if (!event.facts?.fulfil) return;
    const { fulfil, auditId } = event.facts;
    await ctx.stage(
      'fulfilment',
      { orderId: Number(event.data.order_id), event: fulfil },
      { jobId: `order-merchant-${auditId}` },
    );
  },
};

/** The buyer's subscription message, when the emitter tells the buyer (its facts name the message). */
const subscriptionMessage = <T extends SubscriptionEventType>(): Subscriber<T> => ({
  name: 'buyer message: their subscription renewed, failed, needs paying, ended, was cancelled or costs more',
  async run(ctx, generic) {
    // One of the subscription events (T is one of them; the compiler does not narrow a generic).
    const event: EventOf<SubscriptionEventType> = generic;
    const message = event.facts?.message;
    if (!message) return;
    const job = messageJob(
      Number(event.data.subscription_id),
      message.event,
      message.renewalId,
      message.attempt,
    );
    await ctx.stage('messages', job.data, job.opts);
  },
});

/** Every event type and who follows it, in the order they run. */
export const SUBSCRIBERS: { readonly [T in EventType]: readonly Subscriber<T>[] } = {
  'order.created': [merchantWebhook()],
  'order.paid': [merchantWebhook()],
  'order.status_changed': [merchantWebhook(), fulfilment],
  'license.revoked': [merchantWebhook()],
  'subscription.created': [merchantWebhook()],
  'subscription.cancelled': [merchantWebhook(), subscriptionMessage()],
  'refund.created': [merchantWebhook(), refundToProvider],
  'refund.succeeded': [merchantWebhook(), refundMessage],
  'refund.failed': [merchantWebhook()],
  'subscription.renewed': [merchantWebhook(), subscriptionMessage()],
  'subscription.payment_failed': [merchantWebhook(), subscriptionMessage()],
  'subscription.renewal_link_sent': [merchantWebhook(), subscriptionMessage()],
  'subscription.updated': [merchantWebhook(), subscriptionMessage()],
  'subscription.expired': [merchantWebhook(), subscriptionMessage()],
  'order.disputed': [merchantWebhook()],
  'checkout.recovered': [merchantWebhook()],
  'creator.commission': [merchantWebhook()],
};

/** The event types, for the test that checks each has its subscribers declared. */
export const EVENT_TYPES: readonly EventType[] = MERCHANT_EVENT_TYPES;
