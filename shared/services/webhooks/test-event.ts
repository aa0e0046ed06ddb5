import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Queues } from '../../queues';
import { InvalidError, NotFoundError } from '../../errors';
import { paginate, PageMeta, PageRequest } from '../../pagination';
import { ENDPOINT_NOT_FOUND } from './endpoints';
import { dispatchDeliveries, MERCHANT_EVENT_TYPES, MerchantEventType } from './events';

/** A sample `data` of each event type, shaped as the real event's (docs/merchant.md, "Webhooks to merchants"). */
const ORDER = { order_id: 1001, status: 3, total: '50.00', currency: 'SAR', source: 'embed' };
/** What every subscription event but `created` carries (subscriptionEvent in shared/services/subscriptions). */
const SUBSCRIPTION = {
  subscription_id: 301,
  status: 'active',
  product_id: 12,
  plan_id: 4,
  customer_id: 9,
  order_id: 1001,
};
const REFUND = {
  id: 77,
  order_id: 1001,
  amount: '50.00',
  currency: 'SAR',
  status: 'succeeded',
  state: 'succeeded',
  kind: 'provider',
};
export const SAMPLE_DATA: Record<MerchantEventType, Record<string, unknown>> = {
  'order.created': ORDER,
  'order.paid': ORDER,
  'order.status_changed': { order_id: 1001, from: 3, to: 4, status_label: 'Completed' },
  'license.revoked': {
    license_id: 55,
    key: 'XXXX-XXXX-XXXX-XXXX',
    product_id: 12,
    order_id: 1001,
    previous_status: 'active',
  },
  'subscription.created': { subscription_id: 301, product_id: 12, plan_id: 4, order_id: 1001 },
  'subscription.cancelled': { ...SUBSCRIPTION, status: 'cancelled' },
  'subscription.renewed': {
    ...SUBSCRIPTION,
    renewal_order_id: 1002,
    current_period_end: '2026-12-24T00:00:00.000Z',
  },
  'subscription.payment_failed': { ...SUBSCRIPTION, status: 'past_due', attempt: 1, reason: 'declined' },
  'subscription.renewal_link_sent': SUBSCRIPTION,
  'subscription.updated': {
    ...SUBSCRIPTION,
    cancel_at_period_end: true,
    current_period_end: '2026-12-24T00:00:00.000Z',
  },
  'subscription.expired': { ...SUBSCRIPTION, status: 'expired' },
  'refund.created': { ...REFUND, status: 'pending', state: 'requested' },
  'refund.succeeded': REFUND,
  'refund.failed': { ...REFUND, status: 'failed', state: 'failed', failure_reason: 'declined' },
  'order.disputed': {
    order_id: 1001,
    dispute_id: 'dsp_0001',
    reason: 'fraudulent',
    amount: '50.00',
    currency: 'SAR',
    deadline: '2026-12-04T00:00:00.000Z',
    licenses_revoked: 1,
  },
  'checkout.recovered': {
    checkout_id: 880,
    reminder_id: 41,
    order_id: 1001,
    total: '108.00',
    currency: 'SAR',
  },
  'creator.commission': {
    creator_id: 9,
    code: 'NOURA',
    order_id: 1001,
    kind: 'earned',
    refund_id: null,
    revenue: '95.00',
    commission: '9.50',
    currency: 'SAR',
  },
};

export const isEventType = (type: string): type is MerchantEventType =>
  (MERCHANT_EVENT_TYPES as readonly string[]).includes(type);

/**
 * "Send test event": a signed sample of `type` to one endpoint, through the normal path (a delivery row,
 * the `merchant-webhooks` queue, the worker's signed POST with retries and the SSRF guard). The body is
 * the real event's with `"test": true` and an event id `test_<uuid>`, so a receiver can tell it apart.
 * Sent whether or not the endpoint subscribes to `type`. Returns the delivery's id (see listDeliveries).
 */
export async function sendTestEvent(
  deps: { knex: Knex; queues: Queues; config: { merchantWebhookRetryDelayMs: number } },
  storeId: number,
  webhookId: number,
  type: string,
  now: Date = new Date(),
): Promise<{ delivery_id: number; event_id: string; type: MerchantEventType }> {
  if (!isEventType(type)) {
    throw new InvalidError(`Unknown event type: ${type}`).withCode('webhook_event_type_invalid');
  }
  const endpoint = await deps
    .knex('merchant_webhook_endpoints')
    .where({ id: webhookId, store_id: storeId })
    .first('id');
  if (!endpoint) throw new NotFoundError(ENDPOINT_NOT_FOUND).withCode('webhook_endpoint_not_found');
  const eventId = `test_${randomUUID()}`;
  const payload = {
    id: eventId,
    type,
    created_at: now.toISOString(),
    store_id: storeId,
    test: true,
    data: SAMPLE_DATA[type],
  };
  const [row] = await deps
    .knex('merchant_webhook_deliveries')
    .insert({
      store_id: storeId,
      endpoint_id: webhookId,
      event_id: eventId,
      event_type: type,
      payload: JSON.stringify(payload),
      test: true,
      created_at: now,
    })
    .returning<{ id: string | number }[]>('id');
  const deliveryId = Number(row!.id);
  await dispatchDeliveries(deps, [deliveryId]);
  return { delivery_id: deliveryId, event_id: eventId, type };
}

export interface DeliveryView {
  id: number;
  event_id: string;
  event_type: string;
  test: boolean;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  failure_reason: 'refused_address' | 'http_status' | 'timeout' | 'connection_error' | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

interface DeliveryRow {
  id: string | number;
  event_id: string;
  event_type: string;
  test: boolean;
  status: DeliveryView['status'];
  attempts: number;
  response_status: number | null;
  failure_reason: DeliveryView['failure_reason'];
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

/** The delivery log of one endpoint, newest first: each delivery's state and why it failed. */
export async function listDeliveries(
  knex: Knex,
  storeId: number,
  webhookId: number,
  page: PageRequest,
): Promise<{ items: DeliveryView[]; meta: PageMeta }> {
  const endpoint = await knex('merchant_webhook_endpoints')
    .where({ id: webhookId, store_id: storeId })
    .first('id');
  if (!endpoint) throw new NotFoundError(ENDPOINT_NOT_FOUND).withCode('webhook_endpoint_not_found');
  const base = knex('merchant_webhook_deliveries')
    .where({ endpoint_id: webhookId, store_id: storeId })
    .select(
      'id',
      'event_id',
      'event_type',
      'test',
      'status',
      'attempts',
      'response_status',
      'failure_reason',
      'last_error',
      'created_at',
      'delivered_at',
    );
  const { rows, meta } = await paginate<DeliveryRow>(base, page, (q) => q.orderBy('id', 'desc'));
  return {
    items: rows.map((r) => ({
      ...r,
      id: Number(r.id),
      created_at: new Date(r.created_at).toISOString(),
      delivered_at: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
    })),
    meta,
  };
}
