import type { RedisClient } from '../../redis';
import type { Knex } from 'knex';
import { ORDER_STATUS, OrderStatus } from '../../../db/models';
import { ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import { formatMoney } from '../../money';
import type { Queues } from '../../queues';
import { dispatchStaged, StagedJob, stageJob } from '../../queues/outbox';
import { cancelOrder } from '../fulfilment/cancel';
import { activateOrderLicenses } from '../licenses';
import { issueInvoiceForOrder } from '../invoices/issue';
import { confirmManualPayment } from '../payments/manual';
import { transitionPayment } from '../payments/audit';
import { findStoreOrder, ORDER_NOT_FOUND, STATUS_LABELS } from './orders';
import { addRefund, afterRefunds, newRefundEffects, RefundDeps, RefundEffects } from '../refunds/create';
import { recordMerchantEvent, stageDeliveries } from './webhooks/events';

/**
 * PUT /shawarma/orders/{id} {"status": code}: the order lifecycle as the merchant drives it.
 *
 * | from                 | to                    |
 * |----------------------|-----------------------|
 * | 1 Awaiting payment   | 2, 3, 4, 5            |
 * | 2 Under review       | 3, 4, 5, 6            |
 * | 3 In progress        | 4, 5, 6               |
 * | 4 Completed          | 6                     |
 * | 5 Cancelled          | final                 |
 * | 6 Refunded           | final                 |
 *
 * Setting the status an order already has changes nothing (200, `changed: false`), so a retried PUT is
 * harmless. Anything else outside the table is 422 naming the allowed statuses.
 *
 * Side effects, in the transaction that changes the status (the order row locked first, so two PUTs at
 * once serialise), with one `order_status_events` audit row and the merchant webhook events:
 * - 2 -> 3/4: the manual payment (bank transfer, PayPal manual) is confirmed (`confirmManualPayment`:
 *   payment paid with its audit row); fulfilment follows;
 * - 1 -> 3/4: the payment, if any, becomes paid (merchant source); fulfilment follows;
 * - -> 4: the order's generated licenses become active (fulfilment activates any generated later);
 * - -> 5/6: `cancelOrder`: every license revoked, subscriptions cancelled, FiveM commands not yet
 *   collected withdrawn, undelivered code keys back on sale; and the units of undelivered items of
 *   finite-stock products go back to stock.
 * - -> 6: what is left of a paid payment is refunded in full through the refunds service
 *   (shared/services/refunds): the provider's refund API, or a manual refund for the manual methods.
 * Fulfilment jobs are enqueued after the commit (the worker must see the new status).
 */

export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  1: [2, 3, 4, 5],
  2: [3, 4, 5, 6],
  3: [4, 5, 6],
  4: [6],
  5: [],
  6: [],
};

export { ORDER_NOT_FOUND };

export interface TransitionDeps extends RefundDeps {
  knex: Knex;
  queues: Queues;
  logger: Logger;
  /** The license verify cache hears of a revoke once the transaction commits. */
  redis: RedisClient;
  config: { merchantWebhookRetryDelayMs: number; queuePrefix: string; refundRetryDelayMs: number };
}

export interface TransitionResult {
  id: number;
  status: OrderStatus;
  status_label: string;
  previous_status: OrderStatus;
  changed: boolean;
  licenses_revoked: number;
  licenses_activated: number;
  /** The refund a move to Refunded made (absent when nothing was paid, or nothing is left to refund). */
  refund_id?: number;
}

/** What a transition leaves to do once its transaction has committed. */
export interface TransitionAfter {
  fulfil: boolean;
  deliveries: number[];
  auditId: number | null;
  /** Refunds added in the transaction (their provider jobs are enqueued after the commit). */
  refunds: RefundEffects;
  /** Follow-up jobs written with the change (shared/queues/outbox.ts), enqueued after the commit. */
  staged: StagedJob[];
}

export function newTransitionAfter(): TransitionAfter {
  return { fulfil: false, deliveries: [], auditId: null, refunds: newRefundEffects(), staged: [] };
}

/**
 * A status change inside a caller's transaction (the refunds service, when a refund takes the goods
 * back): the caller has locked the order row and added the refund (`refundAdded`), and runs
 * `afterTransition` with `after` once it has committed.
 */
export interface WithinTransaction {
  trx: Knex.Transaction;
  after: TransitionAfter;
  refundAdded: boolean;
}

function refusal(from: OrderStatus): ValidationError {
  const allowed = TRANSITIONS[from];
  const message =
    allowed.length === 0
      ? `An order that is ${STATUS_LABELS[from]} (${from}) cannot change status.`
      : `An order that is ${STATUS_LABELS[from]} (${from}) can only move to ${allowed
          .map((s) => `${s} (${STATUS_LABELS[s]})`)
          .join(', ')}.`;
  return new ValidationError({ status: [message] }, message);
}

export async function updateOrderStatus(
  deps: TransitionDeps,
  storeId: number,
  orderId: number,
  target: OrderStatus,
  actor: { merchantTokenId: number | null },
  now: Date = new Date(),
  within?: WithinTransaction,
): Promise<TransitionResult> {
  const after = within?.after ?? newTransitionAfter();
  const run = async (trx: Knex.Transaction): Promise<TransitionResult> => {
    await findStoreOrder(trx, storeId, orderId);
    const order = await trx('orders').where({ id: orderId }).forUpdate().first();
    const from = Number(order.status) as OrderStatus;
    const base = { id: orderId, previous_status: from, licenses_revoked: 0, licenses_activated: 0 };
    if (from === target) {
      return { ...base, status: from, status_label: STATUS_LABELS[from], changed: false };
    }
    if (!TRANSITIONS[from].includes(target)) throw refusal(from);

    let licensesRevoked = 0;
    let licensesActivated = 0;
    const data: Record<string, unknown> = {};
    const events: Parameters<typeof recordMerchantEvent>[2][] = [];

    if (target === ORDER_STATUS.CANCELLED || target === ORDER_STATUS.REFUNDED) {
      const revoking = await trx('licenses')
        .where('order_id', orderId)
        .whereNot('status', 'revoked')
        .select('id', 'key', 'status', 'product_id');
      const cancelling = await trx('subscriptions')
        .where('order_id', orderId)
        .whereIn('status', ['active', 'past_due'])
        .select('id', 'product_id', 'plan_id', 'customer_id');
      const undelivered = await trx('order_items as i')
        .join('products as p', 'p.id', 'i.product_id')
        .where('i.order_id', orderId)
        .whereNull('i.delivered_at')
        .whereNot('p.type', 'code')
        .whereNotNull('p.stock')
        .select('i.product_id', 'i.quantity');
      const outcome = target === ORDER_STATUS.CANCELLED ? 'cancelled' : 'refunded';
      if (outcome === 'refunded' && !within?.refundAdded) {
        // The money goes back through the refunds service: what is left of the payment, in full.
        const refund = await addRefund(deps, trx, order, { withdrawGoods: true }, actor, after.refunds, now, {
          whole: true,
        });
        if (refund) data.refund_id = refund.id;
      }
      const cancelled = await cancelOrder(
        { knex: trx, redis: deps.redis, config: deps.config },
        orderId,
        outcome,
        now,
        { movePayment: false },
      );
      licensesRevoked = cancelled.licensesRevoked;
      for (const item of undelivered) {
        await trx('products').where('id', item.product_id).increment('stock', Number(item.quantity));
      }
      data.stock_returned = undelivered.reduce((n, i) => n + Number(i.quantity), 0);
      for (const l of revoking) {
        events.push({
          id: `license.revoked:${l.id}`,
          type: 'license.revoked',
          data: {
            license_id: l.id,
            key: l.key,
            product_id: l.product_id,
            order_id: orderId,
            previous_status: l.status,
          },
        });
      }
      for (const s of cancelling) {
        events.push({
          id: `subscription.cancelled:${s.id}`,
          type: 'subscription.cancelled',
          data: {
            subscription_id: s.id,
            product_id: s.product_id,
            plan_id: s.plan_id,
            customer_id: s.customer_id,
            order_id: orderId,
          },
        });
      }
    } else {
      const paying = from <= ORDER_STATUS.UNDER_REVIEW && target >= ORDER_STATUS.IN_PROGRESS;
      if (paying && from === ORDER_STATUS.UNDER_REVIEW) {
        await confirmManualPayment({ knex: trx, queues: deps.queues, logger: deps.logger }, orderId);
      } else if (paying) {
        if (order.payment_id !== null) {
          await transitionPayment(trx, Number(order.payment_id), {
            from: ['pending', 'initiated', 'failed', 'expired'],
            to: 'paid',
            source: 'merchant',
            patch: { paid_at: now, error_message: null },
          });
        }
        await trx('orders')
          .where('id', orderId)
          .update({ status: ORDER_STATUS.IN_PROGRESS, updated_at: now });
        await issueInvoiceForOrder(trx, orderId, now);
      } else if (target === ORDER_STATUS.UNDER_REVIEW) {
        await trx('orders').where('id', orderId).update({ status: target, updated_at: now });
      }
      if (paying) {
        data.payment_confirmed = true;
        events.push({
          id: `order.paid:${orderId}`,
          type: 'order.paid',
          data: {
            order_id: orderId,
            status: target,
            total: formatMoney(Number(order.total_minor), order.currency),
            currency: order.currency,
            source: order.source,
          },
        });
      }
      if (target === ORDER_STATUS.COMPLETED) {
        await trx('orders')
          .where('id', orderId)
          .update({ status: ORDER_STATUS.COMPLETED, completed_at: now, updated_at: now });
        licensesActivated = await activateOrderLicenses(trx, orderId, now);
      }
      after.fulfil = target === ORDER_STATUS.IN_PROGRESS || target === ORDER_STATUS.COMPLETED;
    }

    data.licenses_revoked = licensesRevoked;
    data.licenses_activated = licensesActivated;
    const [audit] = await trx('order_status_events')
      .insert({
        store_id: storeId,
        order_id: orderId,
        from_status: from,
        to_status: target,
        source: 'merchant',
        merchant_token_id: actor.merchantTokenId,
        data: JSON.stringify(data),
        created_at: now,
      })
      .returning('id');
    after.auditId = Number((audit as { id: number }).id);
    events.push({
      id: `order.status_changed:${after.auditId}`,
      type: 'order.status_changed',
      data: { order_id: orderId, from, to: target, status_label: STATUS_LABELS[target] },
    });
    for (const event of events)
      after.deliveries.push(...(await recordMerchantEvent(trx, storeId, event, now)));
    // The follow-up jobs are written with the change (shared/queues/outbox.ts): committed together.
    if (after.fulfil) {
      after.staged.push(
        await stageJob(
          trx,
          'fulfilment',
          { orderId, event: target === ORDER_STATUS.COMPLETED ? 'completed' : 'paid' },
          { jobId: `order-merchant-${after.auditId}` },
        ),
      );
    }
    after.staged.push(...(await stageDeliveries(trx, deps, after.deliveries)));

    return {
      ...base,
      status: target,
      status_label: STATUS_LABELS[target],
      changed: true,
      licenses_revoked: licensesRevoked,
      licenses_activated: licensesActivated,
      ...(typeof data.refund_id === 'number' ? { refund_id: data.refund_id } : {}),
    };
  };
  if (within) return run(within.trx);
  const result = await deps.knex.transaction(run);
  await afterTransition(deps, orderId, after);
  return result;
}

/**
 * After the commit: the refunds' provider jobs, then the staged follow-up jobs; what Redis cannot take
 * now, the outbox relay enqueues once it is back.
 */
export async function afterTransition(
  deps: TransitionDeps,
  orderId: number,
  after: TransitionAfter,
): Promise<void> {
  await afterRefunds(deps, after.refunds);
  await dispatchStaged(deps, after.staged);
}
