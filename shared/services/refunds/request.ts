import { ORDER_STATUS, OrderStatus, Refund } from '../../../db/models';
import { ConflictError, NotFoundError } from '../../errors';
import { unitOfWork } from '../../unit-of-work';
import { changeOrderStatus, type ChangeStatusDeps } from '../orders/change-status';
import { ORDER_NOT_FOUND } from '../orders/lifecycle';
import { addRefund, afterRefunds, newRefundEffects, RefundInput } from './create';
import { refundView, RefundView } from './view';

/** Statuses whose goods a refund can still take back (a cancelled or refunded order has none left). */
const WITHDRAWABLE: readonly OrderStatus[] = [
  ORDER_STATUS.UNDER_REVIEW,
  ORDER_STATUS.IN_PROGRESS,
  ORDER_STATUS.COMPLETED,
];

export interface RefundRequestResult {
  refund: RefundView;
  /** False: the same Idempotency-Key was used before, and this is the refund it made. */
  created: boolean;
  order_status: OrderStatus;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

/**
 * POST /shawarma/orders/{id}/refunds: adds the refund (full, or partial by amount) and, when it takes the
 * goods back, moves the order to Refunded with every side effect of that status change, all in one
 * transaction on the locked order row. The provider is called afterwards by the payments worker; the
 * answer carries the refund `pending` (a manual refund: `succeeded`).
 */
export async function requestRefund(
  deps: ChangeStatusDeps,
  storeId: number,
  orderId: number,
  input: RefundInput,
  actor: { merchantTokenId: number | null },
  now: Date = new Date(),
): Promise<RefundRequestResult> {
  const refunds = newRefundEffects();
  let result: { refund: Refund; created: boolean; status: OrderStatus };
  try {
    result = await unitOfWork(deps, async (uow) => {
      // The provider jobs of the refunds added here go out once the unit of work has committed.
      uow.after(() => afterRefunds(deps, refunds));
      const trx = uow.trx;
      const order = await trx('orders').where({ id: orderId, store_id: storeId }).forUpdate().first();
      if (!order) throw new NotFoundError(ORDER_NOT_FOUND);
      if (input.requestKey) {
        const earlier = await Refund.query(trx).findOne({ store_id: storeId, request_key: input.requestKey });
        if (earlier) {
          const same =
            earlier.order_id === orderId &&
            (input.amountMinor === undefined || input.amountMinor === Number(earlier.amount_minor));
          if (!same) throw new ConflictError('This Idempotency-Key was already used for another refund');
          return { refund: earlier, created: false, status: Number(order.status) as OrderStatus };
        }
      }
      const refund = (await addRefund(deps, uow, order, input, actor, refunds, now))!;
      let status = Number(order.status) as OrderStatus;
      if (refund.withdraw_goods && WITHDRAWABLE.includes(status)) {
        const moved = await changeOrderStatus(deps, storeId, orderId, ORDER_STATUS.REFUNDED, {
          actor,
          now,
          within: { uow, refunds, refundAdded: true },
        });
        status = moved.status;
      }
      return { refund: (await Refund.query(trx).findById(refund.id))!, created: true, status };
    });
  } catch (err) {
    // The same key at once on another order: the unique (store_id, request_key) decided.
    if (input.requestKey && isUniqueViolation(err)) {
      throw new ConflictError('This Idempotency-Key was already used for another refund');
    }
    throw err;
  }
  return { refund: refundView(result.refund), created: result.created, order_status: result.status };
}
