export { COUPON_EXHAUSTED, createOrderFromCheckout } from './create-from-checkout';
export type { CreateOrderOptions, WarningSink } from './create-from-checkout';
export * from './lifecycle';
export { changeOrderStatus } from './change-status';
export type { ChangeStatusDeps, ChangeStatusOptions, StatusChange } from './change-status';
export { cancelOrder } from './cancel';
export type { CancelOutcome, CancelResult } from './cancel';
export { requestRefund, sendRefundAndWithdraw, withdrawAfterRefund } from './refund';
export type { RefundRequestResult } from './refund';
