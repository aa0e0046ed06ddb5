import { documentLink, type DocumentLink } from '../invoices/read';
import type { Knex } from 'knex';
import { Order, OrderItem, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { isFulfillable } from './rules';
import { BuyerLocale, deliveryHeadline } from '../../i18n/buyer-messages';

export type DeliveryOutcome = 'sent' | 'nothing-to-send' | 'already-sent' | 'not-fulfillable';

interface Deliverable {
  item: OrderItem;
  keys: string[];
}

/** The order's keys, by item: code keys sold to it and license keys generated for it (not revoked). */
async function deliverables(knex: Knex, items: OrderItem[]): Promise<Deliverable[]> {
  const ids = items.map((i) => i.id);
  const codes = await knex('product_codes')
    .whereIn('order_item_id', ids)
    .orderBy('id')
    .select<{ order_item_id: number; code: string }[]>('order_item_id', 'code');
  const licenses = await knex('licenses')
    .whereIn('order_item_id', ids)
    .whereIn('status', ['generated', 'active'])
    .orderBy([{ column: 'unit' }, { column: 'id' }])
    .select<{ order_item_id: number; key: string }[]>('order_item_id', 'key');
  return items
    .map((item) => ({
      item,
      keys: [
        ...codes.filter((c) => c.order_item_id === item.id).map((c) => c.code),
        ...licenses.filter((l) => l.order_item_id === item.id).map((l) => l.key),
      ],
    }))
    .filter((d) => d.keys.length > 0);
}

export function deliveryMessage(
  order: Pick<Order, 'id'>,
  storeName: string,
  list: readonly Deliverable[],
  /** The order's invoice (or receipt) page, when the sender can build its address. */
  link: DocumentLink | null = null,
  locale: BuyerLocale = 'en',
): string {
  const lines = [deliveryHeadline(storeName, order.id, locale)];
  for (const { item, keys } of list) {
    lines.push('', `${item.name}:`, ...keys);
  }
  if (link) {
    lines.push(
      '',
      link.kind === 'invoice'
        ? `Tax invoice / الفاتورة الضريبية: ${link.url}`
        : `Receipt / الإيصال: ${link.url}`,
    );
  }
  return lines.join('\n');
}

/** Country code and national number, digits only, as the messenger takes them. */
export function recipientOf(order: Pick<Order, 'customer_country_code' | 'customer_phone'>): string {
  const country = order.customer_country_code.replace(/\D/g, '').replace(/^00/, '');
  return `${country}${order.customer_phone.replace(/\D/g, '')}`;
}

/** The send key of an order's delivery message: one per order and set of items delivered together. */
export function deliveryMessageKey(orderId: number, itemIds: readonly number[]): string {
  return `order-delivery:${orderId}:${[...itemIds].sort((a, b) => a - b).join(',')}`;
}

/**
 * The `messages` order_delivery job: sends the customer the keys of their order (code keys and license
 * keys) through the messenger (WhatsApp first, SMS fallback), then marks the items delivered. Items
 * already marked are not sent again, and the message is keyed by order and items (message_sends), so a
 * crash between the send and the mark does not send it twice: the retry finds the key sent and only marks.
 */
export async function sendOrderDelivery(
  // appSecret and config (the process's Deps): the message links to the order's invoice page.
  deps: { knex: Knex; messenger: Messenger; appSecret?: string; config?: { publicBaseUrl: string } },
  orderId: number,
  now: Date = new Date(),
): Promise<DeliveryOutcome> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  if (!isFulfillable(order.status)) return 'not-fulfillable';
  const items = await OrderItem.query(deps.knex).where('order_id', orderId).orderBy('id');
  const pending = items.filter((i) => i.delivered_at === null);
  if (pending.length === 0) return 'already-sent';
  const list = await deliverables(deps.knex, pending);
  if (list.length === 0) return 'nothing-to-send';
  const store = await Store.query(deps.knex).findById(order.store_id);
  // The buyer's language at checkout (checkouts.locale); English for orders without one.
  const checkout = order.checkout_id
    ? await deps
        .knex('checkouts')
        .where('id', order.checkout_id)
        .first<{ locale: string | null } | undefined>('locale')
    : undefined;
  const locale: BuyerLocale = checkout?.locale === 'ar' ? 'ar' : 'en';
  const link =
    deps.appSecret && deps.config
      ? await documentLink(
          deps.knex,
          { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
          order.id,
        )
      : null;
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: deliveryMessage(order, store?.name ?? 'Your store', list, link, locale),
    route: 'whatsapp_first',
    purpose: 'order_delivery',
    storeId: order.store_id,
    key: deliveryMessageKey(
      orderId,
      list.map((d) => d.item.id),
    ),
  });
  await OrderItem.query(deps.knex)
    .patch({ delivered_at: now })
    .whereIn(
      'id',
      list.map((d) => d.item.id),
    )
    .whereNull('delivered_at');
  return result.duplicate ? 'already-sent' : 'sent';
}
