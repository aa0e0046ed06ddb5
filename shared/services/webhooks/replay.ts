import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { enqueue, type Queues } from '../../queues';
import { DELIVERY_ATTEMPTS } from './events';

/**
 * The webhooks page's delivery log and replay. Deliveries are written and sent by the Merchant API's
 * webhook services (shared/services/webhooks); the dashboard reads the log and sends one again.
 */
export interface DeliveryRow {
  id: number;
  endpoint_url: string;
  event_type: string;
  event_id: string;
  status: string;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

export async function recentDeliveries(knex: Knex, storeId: number, limit = 50): Promise<DeliveryRow[]> {
  const rows = await knex('merchant_webhook_deliveries as d')
    .join('merchant_webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('d.store_id', storeId)
    .orderBy('d.id', 'desc')
    .limit(limit)
    .select(
      'd.id',
      'e.url as endpoint_url',
      'd.event_type',
      'd.event_id',
      'd.status',
      'd.attempts',
      'd.response_status',
      'd.last_error',
      'd.created_at',
      'd.delivered_at',
    );
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    attempts: Number(r.attempts),
    response_status: r.response_status === null ? null : Number(r.response_status),
  }));
}

/**
 * Sends a delivery again, the same event with the same id and payload (receivers dedupe on X-Webhook-Id):
 * back to pending, and a job of its own (the first job's id stays taken while BullMQ keeps it).
 */
export async function replayDelivery(
  deps: { knex: Knex; queues: Queues; config: { merchantWebhookRetryDelayMs: number } },
  storeId: number,
  deliveryId: number,
  now: Date = new Date(),
): Promise<void> {
  const n = await deps
    .knex('merchant_webhook_deliveries')
    .where({ id: deliveryId, store_id: storeId })
    .update({ status: 'pending', delivered_at: null });
  if (n === 0) throw new NotFoundError('Delivery not found');
  // The delivery is reset by one statement above: no transaction exists to stage its job in.
  await enqueue(
    deps.queues,
    'merchant-webhooks',
    { deliveryId },
    {
      jobId: `merchant-webhook-${deliveryId}-replay-${now.getTime()}`,
      attempts: DELIVERY_ATTEMPTS,
      backoff: { type: 'exponential', delay: deps.config.merchantWebhookRetryDelayMs },
    },
  );
}
