import type { Knex } from 'knex';
import { stageJob, type StagedJob } from '../queues/outbox';
import { recordMerchantEvent, stageDeliveries } from './merchant-webhooks';
import { SUBSCRIBERS, type EventConfig, type Subscriber, type SubscriberContext } from './subscribers';
import type { EventType, PlatformEvent } from './types';

/**
 * Runs the subscribers of `event` (subscribers.ts) in the emitting transaction: what they write (webhook
 * deliveries, jobs in the outbox) commits or rolls back with the change. `stage` receives the staged
 * jobs, for the unit of work to dispatch after its commit (the outbox relay hands over what it could not).
 */
export async function emitEvent(
  trx: Knex.Transaction,
  config: EventConfig,
  stage: (...jobs: StagedJob[]) => void,
  event: PlatformEvent,
): Promise<void> {
  const at = event.at ?? new Date();
  const ctx: SubscriberContext = {
    trx,
    at,
    config,
    async stage(queue, data, opts) {
      stage(await stageJob(trx, queue, data, opts));
    },
    async deliverToMerchant(e) {
      const ids = await recordMerchantEvent(trx, e.storeId, { id: e.id, type: e.type, data: e.data }, at);
      stage(...(await stageDeliveries(trx, { config }, ids)));
    },
  };
  // The list is typed per event type; the lookup by a union-typed key is not.
  const subscribers = SUBSCRIBERS[event.type] as readonly Subscriber<EventType>[];
  for (const subscriber of subscribers) await subscriber.run(ctx, event);
}
