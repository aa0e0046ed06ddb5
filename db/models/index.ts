/**
 * Objection models of the platform. Column names are the database's (snake_case) so one concept has one
 * name across the database, the code and the API. Money columns end in `_minor` (integer minor units).
 */
import { Model, RelationMappings } from 'objection';
import { BaseModel } from './base';

export { BaseModel };

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

export class PlatformSetting extends BaseModel {
  static override tableName = 'platform_settings';
  static override idColumn = 'key';
  key!: string;
  value!: string;
  created_at!: Date;
}

export class Store extends BaseModel {
  static override tableName = 'stores';
  static override hasUpdatedAt = true;
  id!: number;
  /** When a product's widget snippet was first copied in the dashboard (the launch checklist). */
  widget_snippet_copied_at?: Date | null;
  name!: string;
  currency!: string;
  plan!: 'paid' | 'free';
  tax_mode!: 'none' | 'inclusive' | 'exclusive';
  tax_rate_bp!: number;
  /** The seller on tax invoices; a store with a `vat_number` issues them (shared/services/invoices). */
  /** The Reply-To of the store's e-mails to buyers (docs/email.md). */
  support_email?: string | null;
  legal_name!: string | null;
  vat_number!: string | null;
  vat_address!: string | null;
  embed_key!: string;
  allowed_origins!: string[];
  /** Calling codes accepted for phone sign-in (digits); null: every code the platform supports. */
  allowed_country_codes!: string[] | null;
  /** Days a buyer has to pay a bank transfer or manual PayPal order before it expires (1..30, default 3). */
  manual_payment_days!: number;
  /** Growth settings (docs/growth.md): the reminder delay (0: off) and the coupon it names. */
  abandoned_checkout_minutes?: number;
  abandoned_checkout_coupon?: string | null;
  /** The store page's address `/s/{slug}` (docs/store-pages.md); unique on the platform. */
  slug!: string;
  /** What the store page shows: a short description, the logo, the accent colour (`#rrggbb`). */
  page_description!: string | null;
  logo_url!: string | null;
  accent_color!: string | null;
  /** The store's policies page (refunds, contact), written by the merchant; plain text. */
  policies!: string | null;
  fixture_ref!: string | null;
  /** The IANA zone people read dates in (receipts, expiry); Asia/Riyadh by default. */
  time_zone?: string;
  /** Digits shown to people: `western` (default) or `arabic_indic`. */
  digits?: 'western' | 'arabic_indic';
  /** Tell the owner of each new paid order by message / by e-mail (both on by default). */
  notify_order_message?: boolean;
  notify_order_email?: boolean;
  created_at!: Date;
  updated_at!: Date;
  domains?: StoreDomain[];
  payment_methods?: StorePaymentMethod[];

  static override get relationMappings(): RelationMappings {
    return {
      domains: {
        relation: Model.HasManyRelation,
        modelClass: StoreDomain,
        join: { from: 'stores.id', to: 'store_domains.store_id' },
      },
      payment_methods: {
        relation: Model.HasManyRelation,
        modelClass: StorePaymentMethod,
        join: { from: 'stores.id', to: 'store_payment_methods.store_id' },
      },
    };
  }
}

export class StoreDomain extends BaseModel {
  static override tableName = 'store_domains';
  id!: number;
  store_id!: number;
  domain!: string;
  /** The TXT value that proves the domain (docs/merchant.md, "Store domains"). */
  txt_value!: string;
  /** Null while pending: a pending domain picks no store. */
  verified_at!: Date | null;
  checked_at!: Date | null;
  created_at!: Date;
}

export class StorePaymentMethod extends BaseModel {
  static override tableName = 'store_payment_methods';
  static override jsonAttributes = ['settings'];
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  method!: PaymentMethodId;
  provider!: 'sandbox' | 'moyasar' | 'coinbase' | 'paypal' | 'bank';
  active!: boolean;
  settings!: Record<string, unknown>;
  min_amount_minor!: number | null;
  max_amount_minor!: number | null;
  credentials_encrypted!: string | null;
  position!: number;
  created_at!: Date;
  updated_at!: Date;
}

export class MerchantToken extends BaseModel {
  static override tableName = 'merchant_tokens';
  id!: number;
  store_id!: number;
  name!: string;
  token_hash!: string;
  /** `read`: GET only; `write`: every route. */
  scope!: 'read' | 'write';
  last4!: string | null;
  last_used_at!: Date | null;
  expires_at!: Date | null;
  revoked_at!: Date | null;
  created_at!: Date;
  store?: Store;

  static override get relationMappings(): RelationMappings {
    return {
      store: {
        relation: Model.BelongsToOneRelation,
        modelClass: Store,
        join: { from: 'merchant_tokens.store_id', to: 'stores.id' },
      },
    };
  }
}

export class FivemServer extends BaseModel {
  static override tableName = 'fivem_servers';
  id!: number;
  store_id!: number;
  name!: string;
  secret_hash!: string;
  last4!: string | null;
  last_seen_at!: Date | null;
  revoked_at!: Date | null;
  created_at!: Date;
}

export class BlockedPhone extends BaseModel {
  static override tableName = 'blocked_phones';
  id!: number;
  store_id!: number | null;
  country_code!: string;
  phone!: string;
  e164!: string;
  reason!: string | null;
  created_at!: Date;
}

export class Customer extends BaseModel {
  static override tableName = 'customers';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  first_name!: string;
  last_name!: string;
  email!: string;
  country_code!: string;
  phone!: string;
  e164!: string;
  fixture_ref!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class CustomerAccessToken extends BaseModel {
  static override tableName = 'customer_access_tokens';
  id!: number;
  customer_id!: number;
  store_id!: number;
  token_hash!: string;
  abilities!: string[];
  name!: string;
  expires_at!: Date;
  last_used_at!: Date | null;
  revoked_at!: Date | null;
  created_at!: Date;
  customer?: Customer;

  static override get relationMappings(): RelationMappings {
    return {
      customer: {
        relation: Model.BelongsToOneRelation,
        modelClass: Customer,
        join: { from: 'customer_access_tokens.customer_id', to: 'customers.id' },
      },
    };
  }
}

export class OtpSession extends BaseModel {
  static override tableName = 'otp_sessions';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  channel!: 'embed' | 'storefront';
  product_id!: number | null;
  token_hash!: string;
  country_code!: string;
  phone!: string;
  e164!: string;
  code_hmac!: string | null;
  code_encrypted!: string | null;
  code_version!: number;
  attempts!: number;
  resends!: number;
  status!: 'pending' | 'verified' | 'registration_open' | 'registration_used';
  customer_id!: number | null;
  last_sent_at!: Date | null;
  expires_at!: Date;
  verified_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}

export class Category extends BaseModel {
  static override tableName = 'categories';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  name!: string;
  /** Arabic name and the descriptions, picked by the reader's language (docs/store-pages.md). */
  name_ar!: string | null;
  description!: string | null;
  description_ar!: string | null;
  slug!: string;
  position!: number;
  fixture_ref!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class Product extends BaseModel {
  static override tableName = 'products';
  static override jsonAttributes = ['fields'];
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  name!: string;
  /** The Arabic name and description, shown to Arabic readers (falling back to `name`, `description`). */
  name_ar!: string | null;
  description_ar!: string | null;
  slug!: string;
  description!: string | null;
  type!: ProductType;
  price_minor!: number;
  sale_price_minor!: number | null;
  active!: boolean;
  stock!: number | null;
  /** Most units one checkout line may take (checkout and cart: 422 naming `quantity` beyond it). */
  max_per_order!: number;
  /** Downloads allowed per file and order item (0: no limit; docs/downloads.md). */
  download_limit!: number;
  image_url!: string | null;
  fields!: CustomField[];
  license_enabled!: boolean;
  license_prefix!: string | null;
  license_lock_type!: LockType | null;
  license_max_activations!: number;
  license_encrypt!: boolean;
  license_secret_encrypted!: string | null;
  fixture_ref!: string | null;
  created_at!: Date;
  updated_at!: Date;
  categories?: Category[];
  plans?: ProductPlan[];
  fivem_commands?: ProductFivemCommand[];
  store?: Store;

  /** What the customer pays per unit before add-ons: the sale price when set. */
  get actualPriceMinor(): number {
    return this.sale_price_minor ?? this.price_minor;
  }

  static override get relationMappings(): RelationMappings {
    return {
      store: {
        relation: Model.BelongsToOneRelation,
        modelClass: Store,
        join: { from: 'products.store_id', to: 'stores.id' },
      },
      categories: {
        relation: Model.ManyToManyRelation,
        modelClass: Category,
        join: {
          from: 'products.id',
          through: { from: 'product_categories.product_id', to: 'product_categories.category_id' },
          to: 'categories.id',
        },
      },
      plans: {
        relation: Model.HasManyRelation,
        modelClass: ProductPlan,
        join: { from: 'products.id', to: 'product_plans.product_id' },
      },
      fivem_commands: {
        relation: Model.HasManyRelation,
        modelClass: ProductFivemCommand,
        join: { from: 'products.id', to: 'product_fivem_commands.product_id' },
      },
    };
  }
}

export class ProductPlan extends BaseModel {
  static override tableName = 'product_plans';
  static override hasUpdatedAt = true;
  id!: number;
  product_id!: number;
  name!: string;
  price_minor!: number;
  duration!: PlanDuration;
  active!: boolean;
  position!: number;
  fixture_ref!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class ProductFivemCommand extends BaseModel {
  static override tableName = 'product_fivem_commands';
  id!: number;
  product_id!: number;
  command!: string;
  require_online!: boolean;
  position!: number;
  run_on!: FivemMoment;
  delay_seconds!: number;
  inventory_slots!: number | null;
}

export class ProductCode extends BaseModel {
  static override tableName = 'product_codes';
  id!: number;
  product_id!: number;
  code!: string;
  status!: 'available' | 'reserved' | 'sold';
  checkout_id!: number | null;
  order_item_id!: number | null;
  sold_at!: Date | null;
  created_at!: Date;
}

export class Coupon extends BaseModel {
  static override tableName = 'coupons';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  code!: string;
  type!: 'percentage' | 'fixed';
  /** percentage: basis points (1000 = 10%); fixed: minor units */
  amount!: number;
  active!: boolean;
  max_uses!: number | null;
  uses_count!: number;
  /** Uses held by open checkouts (reserved at checkout, consumed by the order, released on expiry). */
  reserved_uses!: number;
  min_order_minor!: number | null;
  payment_restrictions!: PaymentMethodId[];
  starts_at!: Date | null;
  expires_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
  products?: Product[];

  static override get relationMappings(): RelationMappings {
    return {
      products: {
        relation: Model.ManyToManyRelation,
        modelClass: Product,
        join: {
          from: 'coupons.id',
          through: { from: 'coupon_products.coupon_id', to: 'coupon_products.product_id' },
          to: 'products.id',
        },
      },
    };
  }
}

export class CouponUse extends BaseModel {
  static override tableName = 'coupon_uses';
  id!: number;
  coupon_id!: number;
  order_id!: number;
  customer_id!: number | null;
  discount_minor!: number;
  created_at!: Date;
}

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

export class Order extends BaseModel {
  static override tableName = 'orders';
  static override hasUpdatedAt = true;
  id!: number;
  /** The order's number in its store, from 1; set by the database on insert (orders_take_number). */
  number!: number;
  store_id!: number;
  checkout_id!: number | null;
  customer_id!: number | null;
  status!: OrderStatus;
  customer_first_name!: string;
  customer_last_name!: string;
  customer_email!: string;
  customer_country_code!: string;
  customer_phone!: string;
  subtotal_minor!: number;
  discount_minor!: number;
  tax_minor!: number;
  /** The rate `tax_minor` was split at, kept with the sale (basis points; 0: no tax). */
  tax_rate_bp!: number;
  total_minor!: number;
  currency!: string;
  coupon_id!: number | null;
  payment_method!: PaymentMethodId | null;
  payment_id!: number | null;
  customer_note!: string | null;
  source!: string;
  completed_at!: Date | null;
  cancelled_at!: Date | null;
  refunded_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
  items?: OrderItem[];

  static override get relationMappings(): RelationMappings {
    return {
      items: {
        relation: Model.HasManyRelation,
        modelClass: OrderItem,
        join: { from: 'orders.id', to: 'order_items.order_id' },
      },
    };
  }
}

export class OrderItem extends BaseModel {
  static override tableName = 'order_items';
  static override jsonAttributes = ['fields'];
  static override hasUpdatedAt = true;
  id!: number;
  order_id!: number;
  product_id!: number | null;
  plan_id!: number | null;
  name!: string;
  type!: ProductType;
  quantity!: number;
  unit_price_minor!: number;
  total_minor!: number;
  fields!: Record<string, unknown>;
  delivered_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}

export class License extends BaseModel {
  static override tableName = 'licenses';
  static override jsonAttributes = ['metadata'];
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  product_id!: number;
  plan_id!: number | null;
  customer_id!: number | null;
  order_id!: number | null;
  order_item_id!: number | null;
  key!: string;
  status!: LicenseStatus;
  lock_type!: LockType;
  max_activations!: number;
  /** Activations held (license_activations rows), kept by the activation statement itself. */
  activations_count!: number;
  starts_at!: Date | null;
  expires_at!: Date | null;
  metadata!: Record<string, unknown> | null;
  fixture_ref!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class LicenseActivation extends BaseModel {
  static override tableName = 'license_activations';
  id!: number;
  license_id!: number;
  /** HMAC of the hardware id or IP address (shared/services/licenses/identifiers.ts), never the value. */
  identifier!: string;
  /** Last characters of the value, for the merchant to tell activations apart. */
  hint!: string | null;
  last_seen_at!: Date;
  created_at!: Date;
}

export class Subscription extends BaseModel {
  static override tableName = 'subscriptions';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  customer_id!: number | null;
  product_id!: number;
  plan_id!: number;
  order_id!: number | null;
  order_item_id!: number | null;
  status!: SubscriptionStatus;
  current_period_start!: Date;
  current_period_end!: Date | null;
  cancelled_at!: Date | null;
  payment_method!: PaymentMethodId | null;
  provider!: string | null;
  payment_token_encrypted!: string | null;
  cancel_at_period_end!: boolean;
  next_plan_id!: number | null;
  /** The unit price the subscriber agreed to (minor units of `currency`): what renewals charge. */
  price_minor!: number | null;
  currency!: string | null;
  /** A price waiting to apply (with `next_plan_id`): from the first renewal at or after `next_terms_from`. */
  next_price_minor!: number | null;
  next_terms_from!: Date | null;
  past_due_since!: Date | null;
  ended_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}

export class FivemCommand extends BaseModel {
  static override tableName = 'fivem_commands';
  id!: number;
  store_id!: number;
  order_id!: number | null;
  order_item_id!: number | null;
  player_id!: string | null;
  command!: string;
  require_online!: boolean;
  status!: 'pending' | 'executed' | 'withdrawn' | 'expired' | 'failed';
  delivered_at!: Date | null;
  created_at!: Date;
  product_command_id!: number | null;
  unit!: number | null;
  kind!: FivemMoment;
  available_at!: Date;
  inventory_slots!: number | null;
  leased_until!: Date | null;
  leased_by!: number | null;
  lease_count!: number;
  executed_at!: Date | null;
  executed_by!: number | null;
  withdrawn_at!: Date | null;
  expires_at!: Date | null;
}

export class WishlistItem extends BaseModel {
  static override tableName = 'wishlist_items';
  id!: number;
  customer_id!: number;
  product_id!: number;
  store_id!: number;
  created_at!: Date;
}

export class Review extends BaseModel {
  static override tableName = 'reviews';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  product_id!: number | null;
  customer_id!: number | null;
  order_id!: number | null;
  rating!: number;
  comment!: string | null;
  published!: boolean;
  created_at!: Date;
  updated_at!: Date;
}

export class AnalyticsEvent extends BaseModel {
  static override tableName = 'analytics_events';
  static override jsonAttributes = ['properties'];
  id!: number;
  store_id!: number;
  type!: 'pageview' | 'event' | 'outbound_click';
  session_id!: string | null;
  visitor_id!: string | null;
  url!: string | null;
  path!: string | null;
  event_name!: string | null;
  properties!: Record<string, unknown> | null;
  title!: string | null;
  referrer!: string | null;
  screen_width!: number | null;
  destination!: string | null;
  text!: string | null;
  occurred_at!: Date;
  created_at!: Date;
}

export class OutboundMessage extends BaseModel {
  static override tableName = 'outbound_messages';
  id!: number;
  store_id!: number | null;
  to!: string;
  channel!: 'whatsapp' | 'sms';
  driver!: 'outbox' | 'twilio';
  body!: string | null;
  purpose!: string;
  status!: 'sent' | 'failed';
  provider_message_id!: string | null;
  error_code!: string | null;
  error_message!: string | null;
  created_at!: Date;
}

export class IdempotencyRecord extends BaseModel {
  static override tableName = 'idempotency_records';
  static override jsonAttributes = ['response'];
  id!: number;
  store_id!: number;
  scope!: string;
  request_hash!: string;
  resource_type!: string | null;
  resource_id!: number | null;
  response!: Record<string, unknown> | null;
  expires_at!: Date;
  created_at!: Date;
}
export { Cart, CartItem, CheckoutItem } from './storefront';
export { OPEN_REFUND_STATES, Refund, type RefundKind, type RefundStatus } from './refund';
export { SubscriptionRenewal } from './subscription-renewal';
export { DashboardSession, MerchantUser, StoreMember, STORE_ROLES, type StoreRole } from './dashboard';
