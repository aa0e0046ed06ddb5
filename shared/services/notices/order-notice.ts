import type { Knex } from 'knex';
import { Order, OrderItem, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { sendEmail, type SendEmailDeps } from '../emails';
import { isFulfillable } from '../fulfilment/rules';

export type OrderNoticeOutcome = 'sent' | 'already-sent' | 'not-paid' | 'off';

export interface OrderNoticeDeps extends SendEmailDeps {
  knex: Knex;
  messenger: Messenger;
  config: SendEmailDeps['config'] & { publicBaseUrl: string };
}

/** The owner's message about a new paid order, in the store's language. */
export function orderNoticeText(
  locale: 'ar' | 'en',
  v: { store: string; number: number; sum: string; buyer: string; url: string },
): string {
  return locale === 'ar'
    ? `${v.store}: طلب مدفوع جديد رقم ${v.number} بقيمة ${v.sum} من ${v.buyer}.\n${v.url}`
    : `${v.store}: new paid order #${v.number}, ${v.sum}, from ${v.buyer}.\n${v.url}`;
}

/**
 * The `messages` job `order_notice` (docs/dashboard.md, "New-order notices"): tells the store's owners of a
 * new paid order by message (each owner's phone, WhatsApp first) and the store by e-mail (its support
 * address), each as its store settings say (`notify_order_message`, `notify_order_email`). Every send is
 * keyed by the order (and the owner), so the job running twice, or a duplicate webhook, tells them once.
 */
export async function sendOrderNotice(deps: OrderNoticeDeps, orderId: number): Promise<OrderNoticeOutcome> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  if (!isFulfillable(order.status)) return 'not-paid';
  const store = await Store.query(deps.knex).findById(order.store_id);
  if (!store) throw new NotFoundError(`store of order ${orderId} does not exist`);
  const byMessage = store.notify_order_message !== false;
  const byEmail = store.notify_order_email !== false && Boolean(store.support_email);
  if (!byMessage && !byEmail) return 'off';
  const locale = (store as Store & { locale?: string }).locale === 'en' ? 'en' : 'ar';
  const total = formatMoney(Number(order.total_minor), order.currency);
  const sum = locale === 'ar' ? `${total} ${order.currency}` : `${order.currency} ${total}`;
  const buyer = `${order.customer_first_name} ${order.customer_last_name}`.trim() || order.customer_phone;
  const url = `${deps.config.publicBaseUrl}/merchant/orders/${order.id}`;
  let sent = false;
  if (byMessage) {
    const owners = await deps
      .knex('store_members as m')
      .join('merchant_users as u', 'u.id', 'm.merchant_user_id')
      .where({ 'm.store_id': store.id, 'm.role': 'owner' })
      .orderBy('u.id')
      .select<{ id: number; e164: string }[]>('u.id', 'u.e164');
    for (const owner of owners) {
      const result = await deps.messenger.send({
        to: owner.e164,
        body: orderNoticeText(locale, { store: store.name, number: order.number, sum, buyer, url }),
        route: 'whatsapp_first',
        purpose: 'order_notice',
        storeId: store.id,
        key: `order-notice:${order.id}:${owner.id}`,
      });
      if (!result.duplicate) sent = true;
    }
  }
  if (byEmail) {
    const items = await OrderItem.query(deps.knex).where('order_id', order.id).orderBy('id');
    const email = await sendEmail(deps, deps.knex, {
      purpose: 'order_notice',
      key: `order-notice:${order.id}`,
      to: store.support_email!,
      locale,
      template: 'order_notice',
      storeId: store.id,
      orderId: order.id,
      data: {
        order_number: order.number,
        amount: total,
        currency: order.currency,
        buyer,
        items: items.length > 0 ? items.map((i) => `${i.name} × ${i.quantity}`) : ['—'],
        url,
      },
    });
    if (!email.duplicate) sent = true;
  }
  return sent ? 'sent' : 'already-sent';
}
