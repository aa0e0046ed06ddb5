import { BaseModel } from './base';
import { PaymentMethodId } from './types';

/** Checkouts and the payments that pay them, with provider events and stored webhook events. */
export type CheckoutStatus = 'created' | 'payment_initiated' | 'paid' | 'expired' | 'cancelled';

export class Checkout extends BaseModel {
  static override tableName = 'checkouts';
  static override jsonAttributes = ['fields'];
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  token_hash!: string;
  /** SHA-256 of the reveal token given to the browser that checked out (shared/services/reveal). */
  reveal_token_hash?: string | null;
  /** SHA-256 of the hosted payment page's reveal cookie (shared/services/reveal). */
  reveal_cookie_hash?: string | null;
  source!: 'embed' | 'storefront' | 'merchant' | 'renewal' | 'store_page';
  /** The buyer's language when they checked out (Accept-Language): the delivery message's language. */
  locale?: 'ar' | 'en' | null;
  customer_id!: number | null;
  customer_first_name!: string;
  customer_last_name!: string;
  customer_email!: string;
  customer_country_code!: string;
  customer_phone!: string;
  product_id!: number;
  plan_id!: number | null;
  quantity!: number;
  unit_price_minor!: number;
  addons_minor!: number;
  subtotal_minor!: number;
  discount_minor!: number;
  tax_minor!: number;
  /** The rate `tax_minor` was split at, kept with the sale (basis points; 0: no tax). */
  tax_rate_bp!: number;
  total_minor!: number;
  currency!: string;
  coupon_id!: number | null;
  customer_note!: string | null;
  fields!: Record<string, unknown>;
  status!: CheckoutStatus;
  reserved!: boolean;
  /** Holds one use of `coupon_id` (coupons.reserved_uses) until paid or expired. */
  coupon_reserved!: boolean;
  /** The buyer's client address (null for checkouts a merchant opened): what the holds cap counts by. */
  client_ip!: string | null;
  /** The creator the checkout credits (docs/growth.md); the reminder that rebuilt it, if one did. */
  creator_id?: number | null;
  reminder_id?: number | null;
  expires_at!: Date;
  created_at!: Date;
  updated_at!: Date;
}

export class CheckoutUpload extends BaseModel {
  static override tableName = 'checkout_uploads';
  id!: number;
  checkout_id!: number;
  field_index!: number;
  storage_driver!: string;
  storage_key!: string;
  original_name!: string;
  mime_type!: string;
  size_bytes!: number;
  created_at!: Date;
}

export type PaymentStatus = 'pending' | 'initiated' | 'paid' | 'failed' | 'expired' | 'refunded';

export class Payment extends BaseModel {
  static override tableName = 'payments';
  static override hasUpdatedAt = true;
  id!: number;
  checkout_id!: number;
  store_id!: number;
  method!: PaymentMethodId;
  provider!: string;
  status!: PaymentStatus;
  amount_minor!: number;
  currency!: string;
  provider_payment_id!: string | null;
  provider_url!: string | null;
  error_message!: string | null;
  paid_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}

export class PaymentEvent extends BaseModel {
  static override tableName = 'payment_events';
  static override jsonAttributes = ['data'];
  id!: number;
  payment_id!: number;
  from_status!: PaymentStatus | null;
  to_status!: PaymentStatus;
  source!: string;
  data!: Record<string, unknown>;
  created_at!: Date;
}

export class WebhookEvent extends BaseModel {
  static override tableName = 'webhook_events';
  static override jsonAttributes = ['payload'];
  id!: number;
  provider!: string;
  event_id!: string;
  payload!: Record<string, unknown>;
  /** The payment the receiver verified the event against (null on rows from before the column). */
  payment_id!: number | null;
  processed_at!: Date | null;
  created_at!: Date;
}
