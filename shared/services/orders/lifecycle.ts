import { ORDER_STATUS, OrderStatus } from '../../../db/models';

/**
 * The order lifecycle as a table, without Postgres: which status may follow which, and the steps a
 * change takes. change-status.ts runs the steps on the locked order row and records what they did;
 * test/unit/order-transitions.test.ts checks the table.
 *
 * | from                 | to                    |
 * |----------------------|-----------------------|
 * | 1 Awaiting payment   | 2, 3, 4, 5            |
 * | 2 Under review       | 3, 4, 5, 6            |
 * | 3 In progress        | 4, 5, 6               |
 * | 4 Completed          | 6                     |
 * | 5 Cancelled          | final                 |
 * | 6 Refunded           | final                 |
 */

export const STATUS_LABELS: Readonly<Record<OrderStatus, string>> = {
  1: 'Awaiting payment',
  2: 'Under review',
  3: 'In progress',
  4: 'Completed',
  5: 'Cancelled',
  6: 'Refunded',
};

export const ORDER_NOT_FOUND = 'Order not found';

export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  1: [2, 3, 4, 5],
  2: [3, 4, 5, 6],
  3: [4, 5, 6],
  4: [6],
  5: [],
  6: [],
};

/**
 * One step of a status change, in the order it runs (steps.ts does each and returns its effects):
 * - `review`: 1 -> 2, the order waits for the merchant to see the money;
 * - `confirm-manual-payment`: 2 -> 3/4, the bank transfer or manual PayPal payment arrived (payment paid
 *   with its audit row, In progress, tax invoice, fulfilment job);
 * - `mark-paid`: 1 -> 3/4, the payment (if any) paid by the merchant's word, In progress, tax invoice;
 * - `complete`: -> 4, Completed and the order's generated licenses active;
 * - `refund-payment`: -> 6, what is left of a paid payment refunded through the refunds service, unless a
 *   refund that takes the goods back is pending or succeeded already (that refund returns the money the
 *   merchant chose: the refunds service moves the order when it succeeds);
 * - `withdraw`: -> 5/6, licenses revoked, subscriptions cancelled, FiveM commands withdrawn, undelivered
 *   code keys back on sale, the status set;
 * - `return-stock`: -> 5/6, units of undelivered finite-stock items back in stock;
 * - `fulfil`: -> 3/4, the fulfilment job staged with the change.
 */
export type OrderStep =
  | 'review'
  | 'confirm-manual-payment'
  | 'mark-paid'
  | 'complete'
  | 'refund-payment'
  | 'withdraw'
  | 'return-stock'
  | 'fulfil';

export type StatusChangePlan =
  | { kind: 'unchanged'; status: OrderStatus }
  | { kind: 'refused'; from: OrderStatus; allowed: readonly OrderStatus[]; message: string }
  | { kind: 'change'; from: OrderStatus; to: OrderStatus; steps: readonly OrderStep[]; paid: boolean };

/** Why `from` cannot move (the 422's message). */
export function refusalMessage(from: OrderStatus): string {
  const allowed = TRANSITIONS[from];
  return allowed.length === 0
    ? `An order that is ${STATUS_LABELS[from]} (${from}) cannot change status.`
    : `An order that is ${STATUS_LABELS[from]} (${from}) can only move to ${allowed
        .map((s) => `${s} (${STATUS_LABELS[s]})`)
        .join(', ')}.`;
}

/**
 * The steps from `from` to `to`. Setting the status an order already has changes nothing (a retried
 * request is harmless); anything outside the table is refused.
 */
export function planStatusChange(
  from: OrderStatus,
  to: OrderStatus,
  // fulfilling: the fulfilment job asked (it is the fulfilment: no job of its own is staged).
  opts: { fulfilling?: boolean } = {},
): StatusChangePlan {
  if (from === to) return { kind: 'unchanged', status: from };
  if (!TRANSITIONS[from].includes(to)) {
    return { kind: 'refused', from, allowed: TRANSITIONS[from], message: refusalMessage(from) };
  }
  const steps: OrderStep[] = [];
  if (to === ORDER_STATUS.CANCELLED || to === ORDER_STATUS.REFUNDED) {
    if (to === ORDER_STATUS.REFUNDED) steps.push('refund-payment');
    steps.push('withdraw', 'return-stock');
    return { kind: 'change', from, to, steps, paid: false };
  }
  const paid = from <= ORDER_STATUS.UNDER_REVIEW && to >= ORDER_STATUS.IN_PROGRESS;
  if (paid) steps.push(from === ORDER_STATUS.UNDER_REVIEW ? 'confirm-manual-payment' : 'mark-paid');
  else if (to === ORDER_STATUS.UNDER_REVIEW) steps.push('review');
  if (to === ORDER_STATUS.COMPLETED) steps.push('complete');
  if ((to === ORDER_STATUS.IN_PROGRESS || to === ORDER_STATUS.COMPLETED) && !opts.fulfilling)
    steps.push('fulfil');
  return { kind: 'change', from, to, steps, paid };
}
