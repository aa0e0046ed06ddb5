import type { Knex } from 'knex';
import { ORDER_STATUS, Order, OrderStatus, Payment } from '../../../db/models';
import { formatMoney } from '../../money';
import { commissionEvent, reverseCommissionForDispute } from '../growth/creator-ledger';
import type { ProviderDispute } from '../../providers/types';
import type { UnitOfWork } from '../../unit-of-work';
import { noteOrderLicensesChangedOn, revokeOrderLicenses } from '../licenses';
import { changeOrderStatus } from '../orders/change-status';
import type { PaymentsContext } from './context';
import { reconcilePayment } from './reconcile';
import { addToBlockLists } from '../fraud/settings';

/**
 * A provider's dispute (chargeback) of a paid payment (docs/fraud.md, "Disputes"), from its verified
 * webhook (payments/webhooks.ts). In one unit of work, on the locked order row:
 * - the dispute is recorded once per order (`order_disputes.order_id` is unique: a duplicate webhook, or
 *   the same dispute under another event id, finds it and changes nothing);
 * - the order is marked (`orders.disputed_at`: `disputed: true` on the Merchant API);
 * - what was not delivered is withheld: an order still Awaiting payment, Under review or In progress is
 *   Cancelled through the order lifecycle (licenses revoked, subscriptions cancelled, undelivered keys back
 *   on sale, no fulfilment); a Completed order keeps its status and has its licenses revoked (the card
 *   holder took the money back, so the goods stop working);
 * - the buyer's phone and e-mail go on the store's block lists;
 * - `order.disputed` is emitted (the merchant's webhook);
 * - the creator credited by the order loses what it still holds of its revenue and commission
 *   (growth/creators.ts reverseCommissionForDispute), with its `creator.commission` event.
 */

export type DisputeOutcome =
  | { outcome: 'disputed'; orderId: number; disputeId: number }
  | { outcome: 'duplicate'; orderId: number }
  | { outcome: 'no-order' };

const WITHHELD_FROM: readonly OrderStatus[] = [
  ORDER_STATUS.AWAITING_PAYMENT,
  ORDER_STATUS.UNDER_REVIEW,
  ORDER_STATUS.IN_PROGRESS,
];

export async function recordDispute(
  ctx: PaymentsContext,
  paymentId: number,
  dispute: ProviderDispute,
  now: Date = new Date(),
): Promise<DisputeOutcome> {
  const payment = await Payment.query(ctx.knex).findById(paymentId);
  if (!payment) return { outcome: 'no-order' };
  // The dispute may be processed before the payment's own webhook: its order is made first, as that
  // webhook would (reconciliation is safe to run twice).
  if (payment.status !== 'paid') await reconcilePayment(ctx, paymentId, 'webhook');

  return ctx.tx(async (uow) => {
    const { trx } = uow;
    const order = await trx('orders')
      .where((q) => q.where('payment_id', paymentId).orWhere('checkout_id', payment.checkout_id))
      .where('store_id', payment.store_id)
      .forUpdate()
      .first<Order | undefined>();
    if (!order) return { outcome: 'no-order' } as const;
    const inserted = await trx('order_disputes')
      .insert({
        store_id: order.store_id,
        order_id: order.id,
        provider: payment.provider,
        provider_dispute_id: dispute.disputeId.slice(0, 200),
        reason: dispute.reason,
        amount_minor: dispute.amountMinor ?? Number(order.total_minor),
        currency: order.currency,
        deadline_at: dispute.deadline,
        created_at: now,
      })
      .onConflict('order_id')
      .ignore()
      .returning<{ id: number }[]>('id');
    if (inserted.length === 0) return { outcome: 'duplicate', orderId: order.id } as const;
    const disputeId = Number(inserted[0]!.id);

    await trx('orders').where('id', order.id).update({ disputed_at: now });
    const licensesRevoked = await withhold(ctx, uow, order, now);
    await trx('order_disputes').where('id', disputeId).update({ licenses_revoked: licensesRevoked });
    await blockBuyer(trx, order);
    // The card holder took the money back: so goes the creator's share (once per order, docs/growth.md).
    const reversal = await reverseCommissionForDispute(trx, order.id);
    if (reversal) await uow.emit(commissionEvent(reversal));

    await uow.emit({
      type: 'order.disputed',
      id: `order.disputed:${order.id}`,
      storeId: order.store_id,
      at: now,
      data: {
        order_id: order.id,
        dispute_id: dispute.disputeId,
        reason: dispute.reason,
        amount: formatMoney(dispute.amountMinor ?? Number(order.total_minor), order.currency),
        currency: order.currency,
        deadline: dispute.deadline ? dispute.deadline.toISOString() : null,
        licenses_revoked: licensesRevoked,
      },
    });
    return { outcome: 'disputed', orderId: order.id, disputeId } as const;
  });
}

/** Takes back what the dispute voids; returns the licenses revoked. */
async function withhold(ctx: PaymentsContext, uow: UnitOfWork, order: Order, now: Date): Promise<number> {
  const status = Number(order.status) as OrderStatus;
  if (WITHHELD_FROM.includes(status)) {
    const change = await changeOrderStatus(ctx, order.store_id, order.id, ORDER_STATUS.CANCELLED, {
      actor: { kind: 'provider' },
      reason: 'disputed',
      within: { uow },
      now,
    });
    return change.licenses_revoked;
  }
  const revoking = await uow
    .trx('licenses')
    .where('order_id', order.id)
    .whereNot('status', 'revoked')
    .select<{ id: number; key: string; status: string; product_id: number }[]>(
      'id',
      'key',
      'status',
      'product_id',
    );
  const revoked = await revokeOrderLicenses(uow.trx, order.id, now);
  if (revoked > 0) await noteOrderLicensesChangedOn(uow, order.id);
  for (const l of revoking) {
    await uow.emit({
      type: 'license.revoked',
      id: `license.revoked:${l.id}`,
      storeId: order.store_id,
      at: now,
      data: {
        license_id: l.id,
        key: l.key,
        product_id: l.product_id,
        order_id: order.id,
        previous_status: l.status,
      },
    });
  }
  return revoked;
}

/** The disputing buyer's phone and e-mail on the store's block lists (kept with what is there). */
async function blockBuyer(trx: Knex, order: Order): Promise<void> {
  const e164 = `${order.customer_country_code}${order.customer_phone}`;
  await trx.raw(
    `insert into blocked_phones (store_id, country_code, phone, e164, reason)
     values (?, ?, ?, ?, ?)
     on conflict (coalesce(store_id, 0), e164) do nothing`,
    [order.store_id, order.customer_country_code, order.customer_phone, e164, `dispute of order ${order.id}`],
  );
  await addToBlockLists(trx, order.store_id, { emails: [order.customer_email] });
}
