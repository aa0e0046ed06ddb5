import type { Knex } from 'knex';
import { ORDER_STATUS, Order, OrderStatus } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import type { LicenseCacheDeps } from '../licenses/cache';
import { noteOrderLicensesChanged } from '../licenses';
import { CancelOutcome, withdrawOrder } from './withdraw';

export type { CancelOutcome } from './withdraw';

export interface CancelResult {
  orderId: number;
  status: OrderStatus;
  changed: boolean;
  licensesRevoked: number;
}

/**
 * Cancels (5) or refunds (6) an order outside the merchant's status change (the manual-payment expiry,
 * operators, tests): in one transaction with the order row locked, `withdrawOrder` (withdraw.ts) takes
 * back what the order gave. Cancelling a cancelled order (or refunding a refunded one) changes nothing; a
 * refunded order cannot be cancelled, and a cancelled one can still be refunded. The merchant's status
 * change runs the same step from its transition table (change-status.ts).
 */
export async function cancelOrder(
  // redis and config: the verify cache hears of the revoke (pass the process's Deps).
  deps: { knex: Knex } & Partial<LicenseCacheDeps>,
  orderId: number,
  outcome: CancelOutcome,
  now: Date = new Date(),
  // false: the caller returns the money through the refunds service, which moves the payment once the
  // provider has refunded it.
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
    const { licensesRevoked } = await withdrawOrder(trx, order, outcome, now, opts);
    return { orderId, status: target, changed: true, licensesRevoked };
  });
  if (result.licensesRevoked > 0) await noteOrderLicensesChanged(deps, orderId);
  return result;
}
