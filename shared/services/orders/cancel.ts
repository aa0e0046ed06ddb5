import { ORDER_STATUS, Order, OrderStatus } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { inUnit, type UnitOrDeps } from '../../unit-of-work';
import { noteOrderLicensesChangedOn } from '../licenses';
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
  // The process's deps (a unit of work of its own), or `{ uow }`: the caller's unit of work.
  db: UnitOrDeps,
  orderId: number,
  outcome: CancelOutcome,
  now: Date = new Date(),
  // false: the caller returns the money through the refunds service, which moves the payment once the
  // provider has refunded it.
  opts: { movePayment?: boolean } = {},
): Promise<CancelResult> {
  return inUnit(db, async (uow): Promise<CancelResult> => {
    const order = await Order.query(uow.trx).findById(orderId).forUpdate();
    if (!order) throw new NotFoundError('Order not found');
    const target = outcome === 'cancelled' ? ORDER_STATUS.CANCELLED : ORDER_STATUS.REFUNDED;
    if (order.status === target) {
      return { orderId, status: order.status, changed: false, licensesRevoked: 0 };
    }
    if (order.status === ORDER_STATUS.REFUNDED)
      throw new InvalidError('A refunded order cannot be cancelled');
    const { licensesRevoked } = await withdrawOrder(uow, order, outcome, now, opts);
    // The verify cache hears of the revoke once the unit of work commits.
    if (licensesRevoked > 0) await noteOrderLicensesChangedOn(uow, orderId);
    return { orderId, status: target, changed: true, licensesRevoked };
  });
}
