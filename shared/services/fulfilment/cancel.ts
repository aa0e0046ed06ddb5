import type { Knex } from 'knex';
import { ORDER_STATUS, Order, OrderStatus } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import type { LicenseCacheDeps } from '../licenses/cache';
import { withdrawOrderCommands } from '../fivem/lifecycle';
import { noteOrderLicensesChanged, revokeOrderLicenses } from '../licenses';
import { transitionPayment } from '../payments/audit';

export type CancelOutcome = 'cancelled' | 'refunded';

export interface CancelResult {
  orderId: number;
  status: OrderStatus;
  changed: boolean;
  licensesRevoked: number;
}

/**
 * Cancels (5) or refunds (6) an order; the Merchant API calls it when a merchant sets either status.
 * In one transaction, with the order row locked:
 * - every license of the order is revoked (spec, License: cancelled or refunded -> revoked), whatever its status;
 * - its subscriptions are cancelled; its FiveM commands not yet executed are withdrawn (no game server
 *   lists them again) and the products' `on_refund` commands are queued where something was given
 *   (withdrawOrderCommands);
 * - code keys of items never delivered go back on sale (delivered keys stay with the customer);
 * - a refund moves a paid payment to refunded, with its audit row (unless `movePayment` is false: the
 *   refunds service moves it once the money is back).
 * Cancelling a cancelled order (or refunding a refunded one) changes nothing; a refunded order cannot be
 * cancelled, and a cancelled one can still be refunded (the money goes back after the cancellation).
 */
export async function cancelOrder(
  // redis and config: the verify cache hears of the revoke (pass the process's Deps).
  deps: { knex: Knex } & Partial<LicenseCacheDeps>,
  orderId: number,
  outcome: CancelOutcome,
  now: Date = new Date(),
  // false: the caller returns the money through the refunds service, which moves the payment once the
  // provider has refunded it (the Merchant API's status change does).
  opts: { movePayment?: boolean } = {},
): Promise<CancelResult> {
  const result = await deps.knex.transaction(async (trx): Promise<CancelResult> => {
    const order = await Order.query(trx).findById(orderId).forUpdate();
    if (!order) throw new NotFoundError('Order not found');
    const target = outcome === 'cancelled' ? ORDER_STATUS.CANCELLED : ORDER_STATUS.REFUNDED;
    if (order.status === target) {
      return { orderId, status: order.status, changed: false, licensesRevoked: 0 };
    }
    if (order.status === ORDER_STATUS.REFUNDED)
      throw new InvalidError('A refunded order cannot be cancelled');

    await Order.query(trx)
      .patch(
        outcome === 'cancelled'
          ? { status: target, cancelled_at: now }
          : { status: target, refunded_at: now },
      )
      .where('id', orderId);
    const licensesRevoked = await revokeOrderLicenses(trx, orderId, now);
    await trx('subscriptions')
      .where({ order_id: orderId, status: 'active' })
      .update({ status: 'cancelled', cancelled_at: now, updated_at: now });
    await withdrawOrderCommands(trx, orderId, now);
    await trx('product_codes')
      .whereIn(
        'order_item_id',
        trx('order_items').select('id').where('order_id', orderId).whereNull('delivered_at'),
      )
      .update({ status: 'available', order_item_id: null, checkout_id: null, sold_at: null });
    if (outcome === 'refunded' && order.payment_id !== null && opts.movePayment !== false) {
      await transitionPayment(trx, order.payment_id, {
        from: ['paid'],
        to: 'refunded',
        source: 'merchant',
        data: { order_id: orderId },
      });
    }
    return { orderId, status: target, changed: true, licensesRevoked };
  });
  if (result.licensesRevoked > 0) await noteOrderLicensesChanged(deps, orderId);
  return result;
}
