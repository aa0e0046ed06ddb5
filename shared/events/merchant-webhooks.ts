import type { Knex } from 'knex';
import { stageJob, StagedJob } from '../queues/outbox';
import { deliveryJobOptions, type MerchantEvent } from '../services/webhooks/events';

/**
 * Writes one delivery row per endpoint of the store that wants this event, inside the caller's
 * transaction when it passes one. The unique (endpoint_id, event_id) makes a repeat write nothing.
 * Returns the ids of the new deliveries. Writers do not call this: they emit the event through their
 * unit of work (shared/events/emit.ts), whose merchant webhook subscriber records and stages them.
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
