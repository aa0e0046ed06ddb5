import type { OrderStatus } from '../../../db/models';
import {
  changeOrderStatus,
  type ChangeStatusDeps,
  type ChangeStatusOptions,
  type StatusChange,
} from './change-status';

/**
 * PUT /shawarma/orders/{id} {"status": code}: the Merchant API's door to the order lifecycle, which lives
 * in shared/services/orders (the table in lifecycle.ts, the steps in steps.ts, the change in
 * change-status.ts). Kept under its old names for the routes and the dashboard.
 */
export { ORDER_NOT_FOUND, TRANSITIONS } from './lifecycle';

export type TransitionDeps = ChangeStatusDeps;
export type TransitionResult = StatusChange;

export function updateOrderStatus(
  deps: TransitionDeps,
  storeId: number,
  orderId: number,
  target: OrderStatus,
  actor: { merchantTokenId: number | null },
  now: Date = new Date(),
  within?: ChangeStatusOptions['within'],
): Promise<TransitionResult> {
  return changeOrderStatus(deps, storeId, orderId, target, { actor, now, within });
}
