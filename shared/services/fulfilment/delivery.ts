import type { Knex } from 'knex';
import { documentLink, type DocumentLink } from '../invoices/read';
import { Order, OrderItem, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { isFulfillable } from './rules';
import { BuyerLocale, deliveryHeadline } from '../../i18n/buyer-messages';
import { downloadLinksFor, type DownloadLink } from '../files/entitlement';
import { sendEmail, type SendEmailDeps } from '../emails';
import { orderBuyerLocale } from '../../i18n/buyer-locale';
import { claimLink } from './claim-links';

export type DeliveryOutcome = 'sent' | 'nothing-to-send' | 'already-sent' | 'not-fulfillable';

export interface Deliverable {
  item: OrderItem;
  codes: string[];
  /** Per code key, its signed claim link ("this key does not work", docs/fraud.md). */
  claims: { code: string; url: string }[];
  licenseKeys: string[];
  /** The item's files, one download address each (docs/downloads.md). */
  downloads: DownloadLink[];
}

/** What delivering an order needs: the messenger, and for the e-mail and download addresses the rest. */
export interface DeliveryDeps extends SendEmailDeps {
  messenger: Messenger;
  appSecret: string;
  config: SendEmailDeps['config'] & { publicBaseUrl: string };
}

/**
 * The order's goods, by item: code keys sold to it, license keys generated for it (not revoked) and the
 * download addresses of its files.
 */
export async function deliverables(deps: DeliveryDeps, items: OrderItem[]): Promise<Deliverable[]> {
  const { knex } = deps;
  const ids = items.map((i) => i.id);
  const codes = await knex('product_codes')
    .whereIn('order_item_id', ids)
    // A key replaced after a claim (docs/fraud.md) is never sent again; its replacement is.
    .whereNull('bad_at')
    .orderBy('id')
    .select<{ id: number; order_item_id: number; code: string }[]>('id', 'order_item_id', 'code');
  const licenses = await knex('licenses')
    .whereIn('order_item_id', ids)
    .whereIn('status', ['generated', 'active'])
    .orderBy([{ column: 'unit' }, { column: 'id' }])
    .select<{ order_item_id: number; key: string }[]>('order_item_id', 'key');
  const all = await Promise.all(
    items.map(async (item) => ({
      item,
      codes: codes.filter((c) => c.order_item_id === item.id).map((c) => c.code),
      claims: codes
        .filter((c) => c.order_item_id === item.id)
        .map((c) => ({
          code: c.code,
          url: claimLink(deps.config.publicBaseUrl, deps.appSecret, Number(c.id)),
        })),
      licenseKeys: licenses.filter((l) => l.order_item_id === item.id).map((l) => l.key),
      downloads: await downloadLinksFor(deps, item.id),
    })),
  );
  return all.filter((d) => d.codes.length + d.licenseKeys.length + d.downloads.length > 0);
}

/** The line above a delivery's claim links. */
function claimPrompt(locale: BuyerLocale): string {
  return locale === 'ar' ? 'مفتاح لا يعمل؟ أبلغ عنه:' : 'A key does not work? Report it:';
}

/** The Arabic names (name_ar) of the products delivered, for an Arabic buyer (docs/store-pages.md). */
async function arabicNames(knex: Knex, list: readonly Deliverable[]): Promise<Map<number, string>> {
  const ids = [...new Set(list.map((d) => d.item.product_id).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const rows = (await knex('products')
    .whereIn('id', ids)
    .whereNotNull('name_ar')
    .select('id', 'name_ar')) as {
    id: number;
    name_ar: string;
  }[];
  return new Map(rows.filter((r) => r.name_ar.trim()).map((r) => [Number(r.id), r.name_ar]));
}

export function deliveryMessage(
  order: Pick<Order, 'id' | 'number'>,
  storeName: string,
  list: readonly Deliverable[],
  /** The order's invoice (or receipt) page, when the sender can build its address. */
  link: DocumentLink | null = null,
  locale: BuyerLocale = 'en',
  /** Product names in the buyer's language by product id (name_ar for Arabic buyers); else the item's. */
  names: ReadonlyMap<number, string> = new Map(),
): string {
  const lines = [deliveryHeadline(storeName, order.number, locale)];
  for (const { item, codes, licenseKeys, downloads, claims = [] } of list) {
    const name = (item.product_id !== null && names.get(item.product_id)) || item.name;
    lines.push('', `${name}:`, ...codes, ...licenseKeys, ...downloads.map((d) => `${d.name}: ${d.url}`));
    if (claims.length > 0) {
      lines.push(`${claimPrompt(locale)}`, ...claims.map((c) => `${c.code}: ${c.url}`));
    }
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

/** The delivery e-mail's template data: the same goods as the message, by item. */
export function deliveryEmailData(
  order: Pick<Order, 'id' | 'number'>,
  list: readonly Deliverable[],
  link: DocumentLink | null,
  /** Product names in the buyer's language by product id (name_ar for Arabic buyers); else the item's. */
  names: ReadonlyMap<number, string> = new Map(),
) {
  return {
    order_id: order.id,
    order_number: order.number,
    items: list.map((d) => ({
      name: (d.item.product_id !== null && names.get(d.item.product_id)) || d.item.name,
      codes: d.codes,
      license_keys: d.licenseKeys,
      downloads: d.downloads.map((f) => ({ name: f.name, url: f.url })),
      claims: d.claims,
    })),
    document: link ? { kind: link.kind, url: link.url } : null,
  };
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
  deps: DeliveryDeps,
  orderId: number,
  now: Date = new Date(),
): Promise<DeliveryOutcome> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  if (!isFulfillable(order.status)) return 'not-fulfillable';
  const items = await OrderItem.query(deps.knex).where('order_id', orderId).orderBy('id');
  const pending = items.filter((i) => i.delivered_at === null);
  if (pending.length === 0) return 'already-sent';
  const list = await deliverables(deps, pending);
  if (list.length === 0) return 'nothing-to-send';
  const store = await Store.query(deps.knex).findById(order.store_id);
  const locale = await orderBuyerLocale(deps.knex, order.id);
  const names = locale === 'ar' ? await arabicNames(deps.knex, list) : new Map<number, string>();
  const link = await documentLink(
    deps.knex,
    { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
    order.id,
  );
  const key = deliveryMessageKey(
    orderId,
    list.map((d) => d.item.id),
  );
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: deliveryMessage(order, store?.name ?? 'Your store', list, link, locale, names),
    route: 'whatsapp_first',
    purpose: 'order_delivery',
    storeId: order.store_id,
    key,
  });
  // The same delivery by e-mail when the buyer gave an address, once per key (docs/email.md): asked for
  // before the items are marked, so a retry after a crash here still asks (and finds it asked).
  if (order.customer_email) {
    await sendEmail(deps, deps.knex, {
      purpose: 'order_delivery',
      key,
      to: order.customer_email,
      locale,
      template: 'delivery',
      storeId: order.store_id,
      orderId: order.id,
      data: deliveryEmailData(order, list, link, names),
      attachments: link?.kind === 'invoice' ? [{ kind: 'invoice_pdf', orderId: order.id }] : [],
    });
  }
  await OrderItem.query(deps.knex)
    .patch({ delivered_at: now })
    .whereIn(
      'id',
      list.map((d) => d.item.id),
    )
    .whereNull('delivered_at');
  return result.duplicate ? 'already-sent' : 'sent';
}
