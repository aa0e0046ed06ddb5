/**
 * Objection models of the platform. Column names are the database's (snake_case) so one concept has one
 * name across the database, the code and the API. Money columns end in `_minor` (integer minor units).
 */
export { BaseModel } from './base';
export * from './types';
export * from './stores';
export * from './customers';
export * from './catalogue';
export * from './checkout';
export * from './orders';
export * from './records';
export { Cart, CartItem, CheckoutItem } from './storefront';
export { OPEN_REFUND_STATES, Refund, type RefundKind, type RefundStatus } from './refund';
export { SubscriptionRenewal } from './subscription-renewal';
export { DashboardSession, MerchantUser, StoreMember, STORE_ROLES, type StoreRole } from './dashboard';
