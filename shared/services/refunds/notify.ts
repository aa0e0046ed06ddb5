import type { Knex } from 'knex';
import { Order, Refund, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { sendEmail, type SendEmailDeps } from '../emails';
import { recipientOf } from '../fulfilment/delivery';
import { orderBuyerLocale } from '../../i18n/buyer-locale';
import { SOLD_OUT_REASON } from './create';

export type RefundMessageOutcome = 'sent' | 'already-sent' | 'not-succeeded';

/** The buyer's message for a refund that succeeded, in English and Arabic, naming the store's order number. */
export function refundMessage(
  refund: Pick<Refund, 'amount_minor' | 'currency' | 'kind'> & { reason?: string | null },
  orderNumber: number,
  storeName: string,
): string {
  const amount = `${formatMoney(Number(refund.amount_minor), refund.currency)} ${refund.currency}`;
  if (refund.reason === SOLD_OUT_REASON) {
    // The payment of a checkout whose keys or stock were sold while it was being paid (payments/reconcile.ts).
    return (
      `${storeName}: it sold out before your payment for order #${orderNumber} arrived, so nothing was delivered. ` +
      `A refund of ${amount} was sent back to your payment method. It may take a few days to appear.\n\n` +
      `${storeName}: نفدت الكمية قبل وصول دفعتك للطلب رقم ${orderNumber}، فلم يُسلَّم شيء. ` +
      `تم استرداد ${amount} إلى وسيلة الدفع الخاصة بك، وقد يستغرق ظهوره بضعة أيام.`
    );
  }
  const en =
    refund.kind === 'provider'
      ? `${storeName}: a refund of ${amount} for your order #${orderNumber} was sent back to your payment method. It may take a few days to appear.`
      : `${storeName}: a refund of ${amount} for your order #${orderNumber} is being returned to you by the store.`;
  const ar =
    refund.kind === 'provider'
      ? `${storeName}: تم استرداد ${amount} لطلبك رقم ${orderNumber} إلى وسيلة الدفع الخاصة بك، وقد يستغرق ظهوره بضعة أيام.`
      : `${storeName}: يقوم المتجر بإعادة ${amount} إليك عن طلبك رقم ${orderNumber}.`;
  return `${en}\n\n${ar}`;
}

/**
 * The `messages` refund job: tells the buyer a refund succeeded (WhatsApp first, SMS fallback), and by
 * e-mail when the order has an address. Keyed by the refund (message_sends, emails), so the job running
 * twice sends each once.
 */
export async function sendRefundMessage(
  deps: SendEmailDeps & { knex: Knex; messenger: Messenger },
  refundId: number,
): Promise<RefundMessageOutcome> {
  const refund = await Refund.query(deps.knex).findById(refundId);
  if (!refund) throw new NotFoundError(`refund ${refundId} does not exist`);
  if (refund.status !== 'succeeded') return 'not-succeeded';
  const order = await Order.query(deps.knex).findById(refund.order_id);
  if (!order) throw new NotFoundError(`order of refund ${refundId} does not exist`);
  const store = await Store.query(deps.knex).findById(refund.store_id);
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: refundMessage(refund, order.number, store?.name ?? 'Your store'),
    route: 'whatsapp_first',
    purpose: 'refund',
    storeId: refund.store_id,
    key: `refund:${refund.id}`,
  });
  if (order.customer_email) {
    await sendEmail(deps, deps.knex, {
      purpose: 'refund',
      key: `refund:${refund.id}`,
      to: order.customer_email,
      locale: await orderBuyerLocale(deps.knex, order.id),
      template: 'refund',
      storeId: refund.store_id,
      orderId: order.id,
      data: {
        order_id: order.id,
        order_number: order.number,
        amount: formatMoney(Number(refund.amount_minor), refund.currency),
        currency: refund.currency,
        reason: refund.reason ?? null,
      },
    });
  }
  return result.duplicate ? 'already-sent' : 'sent';
}
