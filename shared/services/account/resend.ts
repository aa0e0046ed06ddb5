import crypto from 'node:crypto';
import { Order, OrderItem, Store } from '../../../db/models';
import { RateLimitedError } from '../../errors';
import { enqueue } from '../../queues';
import type { Queues } from '../../queues';
import { sendEmail } from '../emails';
import { deliverables, deliveryMessage, recipientOf, type DeliveryDeps } from '../fulfilment/delivery';
import { isFulfillable } from '../fulfilment/rules';
import { documentLink } from '../invoices/read';
import { orderBuyerLocale } from '../../i18n/buyer-locale';
import type { LimitDefinition } from '../../rate-limits';
import type { LimitUse } from '../rate-limiter';

/**
 * "Send again" (docs/account.md): the buyer asks from their account for an order's goods once more, by
 * message (to the order's phone) or by e-mail (to the order's address), never to anywhere else. The same
 * senders as the first delivery (shared/services/fulfilment/delivery.ts), under a key of the request, so
 * a retried job sends once. Three a quarter hour per order and channel.
 */
export const RESEND_LIMIT = Object.freeze({
  name: 'account_resend',
  points: 3,
  durationSeconds: 900,
  scope: 'token',
}) as LimitDefinition;

export type ResendChannel = 'message' | 'email';

export async function requestSendAgain(
  deps: {
    queues: Queues;
    enforce: (uses: readonly LimitUse[]) => Promise<unknown>;
  } & DeliveryDeps,
  order: { id: number },
  channel: ResendChannel,
): Promise<{ kind: 'queued' } | { kind: 'no_email' } | { kind: 'rate_limited'; retryAfter: number }> {
  const row = await Order.query(deps.knex).findById(order.id);
  if (!row || !isFulfillable(row.status)) return { kind: 'no_email' };
  if (channel === 'email' && !row.customer_email) return { kind: 'no_email' };
  try {
    await deps.enforce([{ def: RESEND_LIMIT, key: `${order.id}:${channel}` }]);
  } catch (err) {
    if (err instanceof RateLimitedError) return { kind: 'rate_limited', retryAfter: err.retryAfterSeconds };
    throw err;
  }
  const request = `${Date.now()}-${crypto.randomBytes(4).toString('hex')}`;
  if (channel === 'email') {
    await sendDeliveryEmail(deps, row, `order-resend:${order.id}:${request}`);
    return { kind: 'queued' };
  }
  // A read-only request: no transaction to stage the job in (the job's key makes a repeat harmless).
  await enqueue(
    deps.queues,
    'messages',
    { kind: 'order_resend', orderId: order.id, request },
    { jobId: `order-resend-${order.id}-${request}` },
  );
  return { kind: 'queued' };
}

async function sendDeliveryEmail(deps: DeliveryDeps, order: Order, key: string): Promise<void> {
  const items = await OrderItem.query(deps.knex).where('order_id', order.id).orderBy('id');
  const list = await deliverables(deps, items);
  const locale = await orderBuyerLocale(deps.knex, order.id);
  const link = await documentLink(
    deps.knex,
    { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
    order.id,
  );
  await sendEmail(deps, deps.knex, {
    purpose: 'order_delivery',
    key,
    to: order.customer_email,
    locale,
    template: 'delivery',
    storeId: order.store_id,
    orderId: order.id,
    data: {
      order_id: order.id,
      order_number: order.number,
      items: list.map((d) => ({
        name: d.item.name,
        codes: d.codes,
        license_keys: d.licenseKeys,
        downloads: d.downloads.map((f) => ({ name: f.name, url: f.url })),
      })),
      document: link ? { kind: link.kind, url: link.url } : null,
    },
    attachments: link?.kind === 'invoice' ? [{ kind: 'invoice_pdf', orderId: order.id }] : [],
  });
}

/** The `messages` job of a "send again" by message: the whole order's goods, under the request's key. */
export async function sendOrderAgain(
  deps: DeliveryDeps,
  orderId: number,
  request: string,
): Promise<'sent' | 'already-sent' | 'not-fulfillable' | 'nothing-to-send'> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order || !isFulfillable(order.status)) return 'not-fulfillable';
  const items = await OrderItem.query(deps.knex).where('order_id', orderId).orderBy('id');
  const list = await deliverables(deps, items);
  if (list.length === 0) return 'nothing-to-send';
  const store = await Store.query(deps.knex).findById(order.store_id);
  const locale = await orderBuyerLocale(deps.knex, order.id);
  const link = await documentLink(
    deps.knex,
    { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
    order.id,
  );
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: deliveryMessage(order, store?.name ?? 'Your store', list, link, locale),
    route: 'whatsapp_first',
    purpose: 'order_delivery',
    storeId: order.store_id,
    key: `order-resend:${orderId}:${request}`,
  });
  return result.duplicate ? 'already-sent' : 'sent';
}
