import type { Knex } from 'knex';
import { Order, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { sendEmail, type SendEmailDeps } from '../emails';
import { recipientOf } from '../fulfilment/delivery';
import { findClaim, type ClaimView } from './claims';

export type ClaimMessageOutcome = 'sent' | 'already-sent' | 'not-decided';

/** The buyer's message about a decided claim: the replacement key, or the merchant's note. */
export function claimMessage(
  claim: ClaimView,
  storeName: string,
  locale: 'ar' | 'en',
  orderNumber: number = claim.order_id,
): string {
  if (locale === 'ar') {
    return claim.status === 'approved'
      ? `${storeName}: تم استبدال المفتاح ${claim.code} في طلبك رقم ${orderNumber}. مفتاحك الجديد:\n${claim.replacement_code}`
      : `${storeName}: تم رفض طلب استبدال المفتاح ${claim.code} في طلبك رقم ${orderNumber}.${claim.merchant_note ? `\n${claim.merchant_note}` : ''}`;
  }
  return claim.status === 'approved'
    ? `${storeName}: the key ${claim.code} of your order #${orderNumber} was replaced. Your new key:\n${claim.replacement_code}`
    : `${storeName}: your claim on the key ${claim.code} of order #${orderNumber} was declined.${claim.merchant_note ? `\n${claim.merchant_note}` : ''}`;
}

/**
 * The `messages` job `key_claim`: tells the buyer the merchant's answer by message (WhatsApp first, SMS
 * fallback) and by e-mail, each keyed by the claim, so the job running twice sends each once.
 */
export async function sendClaimMessage(
  deps: SendEmailDeps & { knex: Knex; messenger: Messenger },
  claimId: number,
): Promise<ClaimMessageOutcome> {
  const claim = await findClaim(deps.knex, claimId);
  if (!claim) throw new NotFoundError(`claim ${claimId} does not exist`);
  if (claim.status === 'open') return 'not-decided';
  const order = await Order.query(deps.knex).findById(claim.order_id);
  if (!order) throw new NotFoundError(`order of claim ${claimId} does not exist`);
  const store = await Store.query(deps.knex).findById(claim.store_id);
  const locale = claim.locale === 'ar' ? 'ar' : 'en';
  const storeName = store?.name ?? 'Your store';
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: claimMessage(claim, storeName, locale, order.number),
    route: 'whatsapp_first',
    purpose: 'key_claim',
    storeId: claim.store_id,
    key: `key-claim:${claim.id}`,
  });
  if (order.customer_email) {
    await sendEmail(deps, deps.knex, {
      purpose: 'key_claim',
      key: `key-claim:${claim.id}`,
      to: order.customer_email,
      locale,
      template: 'key_claim',
      storeId: claim.store_id,
      orderId: order.id,
      data: {
        order_id: order.id,
        order_number: order.number,
        code: claim.code,
        approved: claim.status === 'approved',
        replacement_code: claim.replacement_code,
        note: claim.merchant_note,
      },
    });
  }
  return result.duplicate ? 'already-sent' : 'sent';
}
