import type { Knex } from 'knex';
import { Order, Refund, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { recipientOf } from '../fulfilment/delivery';

export type RefundMessageOutcome = 'sent' | 'already-sent' | 'not-succeeded';

/** The buyer's message for a refund that succeeded, in English and Arabic. */
export function refundMessage(
  refund: Pick<Refund, 'amount_minor' | 'currency' | 'kind'>,
  orderId: number,
  storeName: string,
): string {
  const amount = `${formatMoney(Number(refund.amount_minor), refund.currency)} ${refund.currency}`;
  const en =
    refund.kind === 'provider'
      ? `${storeName}: a refund of ${amount} for your order #${orderId} was sent back to your payment method. It may take a few days to appear.`
      : `${storeName}: a refund of ${amount} for your order #${orderId} is being returned to you by the store.`;
  const ar =
    refund.kind === 'provider'
      ? `${storeName}: تم استرداد ${amount} لطلبك رقم ${orderId} إلى وسيلة الدفع الخاصة بك، وقد يستغرق ظهوره بضعة أيام.`
      : `${storeName}: يقوم المتجر بإعادة ${amount} إليك عن طلبك رقم ${orderId}.`;
  return `${en}\n\n${ar}`;
}

/**
 * The `messages` refund job: tells the buyer a refund succeeded (WhatsApp first, SMS fallback). Keyed by
 * the refund (message_sends), so the job running twice sends once.
 */
export async function sendRefundMessage(
  deps: { knex: Knex; messenger: Messenger },
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
    body: refundMessage(refund, order.id, store?.name ?? 'Your store'),
    route: 'whatsapp_first',
    purpose: 'refund',
    storeId: refund.store_id,
    key: `refund:${refund.id}`,
  });
  return result.duplicate ? 'already-sent' : 'sent';
}
