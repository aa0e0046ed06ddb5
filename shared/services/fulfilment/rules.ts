import { ORDER_STATUS, OrderItem, OrderStatus, Product } from '../../../db/models';

/**
 * Where a paid order goes once fulfilment has run (spec, Order status codes):
 * - digital goods (product, code, subscription, and anything with license generation) are delivered by
 *   the platform itself, so the order is Completed (4);
 * - a service is done by the merchant: the order stays In progress (3) until the merchant completes it;
 * - PayPal and bank transfer orders wait in Under review (2) until the merchant confirms the payment, and
 *   nothing is fulfilled before that. Awaiting payment (1) is likewise not fulfilled.
 */
export function isDigital(
  item: Pick<OrderItem, 'type'>,
  product: Pick<Product, 'license_enabled'> | null,
): boolean {
  return item.type !== 'service' || product?.license_enabled === true;
}

export function statusAfterFulfilment(digitalFlags: readonly boolean[]): OrderStatus {
  return digitalFlags.every(Boolean) ? ORDER_STATUS.COMPLETED : ORDER_STATUS.IN_PROGRESS;
}

/** Statuses in which a paid order is fulfilled. */
export function isFulfillable(status: OrderStatus): boolean {
  return status === ORDER_STATUS.IN_PROGRESS || status === ORDER_STATUS.COMPLETED;
}
