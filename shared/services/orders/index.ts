export { COUPON_EXHAUSTED, createOrderFromCheckout } from './create-from-checkout';
export type { CreateOrderOptions, WarningSink } from './create-from-checkout';
