import { ORDER_STATUS, OrderStatus, Refund } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { ConflictError, NotFoundError } from '../../errors';
import { unitOfWork, type TxDeps, type UnitOfWork } from '../../unit-of-work';
import { addRefund, type RefundInput } from '../refunds/create';
import { sendRefund, type SendOutcome } from '../refunds/send';
import { refundView, type RefundView } from '../refunds/view';
import { changeOrderStatus, type ChangeStatusDeps, type OrderActor } from './change-status';
import { ORDER_NOT_FOUND } from './lifecycle';

/**
 * A refund seen from the order (shared/services/refunds/CONTEXT.md): asking for one on a locked order, and
 * taking the goods back once it has succeeded. The refunds domain keeps the refund's own state machine
 * (requested, sent, succeeded, failed) and never imports this domain: what the order does after a success
 * is handed to its job here (`sendRefundAndWithdraw`).
 */

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

/**
 * A refund that takes the goods back has succeeded (the provider took it, or a manual refund was
 * recorded): the order moves to Refunded through the order lifecycle, in the caller's unit of work, which
 * settled the refund under its lock (so this runs once per refund). An order whose goods are gone already
 * (Cancelled, Refunded) or never paid is left as it is. Returns the order's status after.
 */
export async function withdrawAfterRefund(
  deps: ChangeStatusDeps,
  uow: UnitOfWork,
  refund: Pick<Refund, 'store_id' | 'order_id' | 'withdraw_goods' | 'status'>,
  actor: OrderActor,
  now: Date,
): Promise<OrderStatus> {
  const order = await uow
    .trx('orders')
    .where('id', refund.order_id)
    .forUpdate()
    .first<{ status: number }>('status');
  const status = Number(order?.status) as OrderStatus;
  if (!refund.withdraw_goods || refund.status !== 'succeeded' || !WITHDRAWABLE.includes(status))
    return status;
  const moved = await changeOrderStatus(deps, refund.store_id, refund.order_id, ORDER_STATUS.REFUNDED, {
    actor,
    reason: 'refund_succeeded',
    onlyFrom: WITHDRAWABLE,
    now,
    within: { uow },
  });
  return moved.status;
}

/**
 * The payments worker's `refund` job: sends the refund (shared/services/refunds/send.ts) and, in the
 * transaction that records its success, withdraws the goods when the refund takes them back. A decline
 * or an outage leaves the order and its goods as they are.
 */
export function sendRefundAndWithdraw(
  deps: ChangeStatusDeps & TxDeps & { cipher: Cipher },
  refundId: number,
  now: () => Date = () => new Date(),
): Promise<SendOutcome> {
  return sendRefund(
    deps,
    refundId,
    (uow, refund, at) => withdrawAfterRefund(deps, uow, refund, { kind: 'provider' }, at),
    now,
  );
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

/**
 * POST /shawarma/orders/{id}/refunds: adds the refund (full, or partial by amount) in one transaction on
 * the locked order row. A refund that takes the goods back moves the order to Refunded (with every side
 * effect of that status change) only once the money is back: at once for a manual refund (recorded
 * `succeeded`), and for a provider refund when the provider has taken it (`withdrawAfterRefund`, run by the
 * payments worker's `refund` job with the refund's settlement). A declined refund leaves the order and its
 * goods as they were. The answer carries the refund `requested` (`status: pending`; a manual refund: `succeeded`).
 */
export async function requestRefund(
  deps: ChangeStatusDeps,
  storeId: number,
  orderId: number,
  input: RefundInput,
  actor: { merchantTokenId: number | null },
  now: Date = new Date(),
): Promise<RefundRequestResult> {
  let result: { refund: Refund; created: boolean; status: OrderStatus };
  try {
    result = await unitOfWork(deps, async (uow) => {
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
      const refund = (await addRefund(deps, uow, order, input, actor, now))!;
      let status = Number(order.status) as OrderStatus;
      if (refund.status === 'succeeded') {
        status = await withdrawAfterRefund(
          deps,
          uow,
          refund,
          { merchantTokenId: actor.merchantTokenId },
          now,
        );
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
