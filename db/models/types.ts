/** Value types shared by the models: product kinds, payment methods, statuses, custom fields. */
export type ProductType = 'product' | 'code' | 'service' | 'subscription';
export type PaymentMethodId = 'card' | 'mada' | 'stcpay' | 'applepay' | 'paypal' | 'bank' | 'coinbase';
export const PAYMENT_METHOD_IDS: readonly PaymentMethodId[] = [
  'card',
  'mada',
  'stcpay',
  'applepay',
  'paypal',
  'bank',
  'coinbase',
];
export type PlanDuration = 'monthly' | 'quarterly' | 'yearly' | 'lifetime';
export type LicenseStatus = 'generated' | 'active' | 'expired' | 'suspended' | 'revoked';
export type LockType = 'none' | 'hwid' | 'ip';
export type SubscriptionStatus = 'active' | 'past_due' | 'cancelled' | 'expired';
/** When a FiveM command template runs: bought, refunded or cancelled, a subscription renewed or lapsed. */
export type FivemMoment = 'purchase' | 'refund' | 'renewal' | 'expiry';

export const ORDER_STATUS = {
  AWAITING_PAYMENT: 1,
  UNDER_REVIEW: 2,
  IN_PROGRESS: 3,
  COMPLETED: 4,
  CANCELLED: 5,
  REFUNDED: 6,
} as const;
export type OrderStatus = (typeof ORDER_STATUS)[keyof typeof ORDER_STATUS];

export interface CustomFieldOption {
  label: string;
  label_ar?: string | null;
  price_minor: number;
}
export interface CustomField {
  type: 'text' | 'number' | 'date' | 'datetime' | 'color' | 'select' | 'image' | 'file';
  label: string;
  /** The Arabic label (docs/store-pages.md); readers fall back to `label`. */
  label_ar?: string | null;
  required: boolean;
  options?: CustomFieldOption[];
}
