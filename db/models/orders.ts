import { Model, RelationMappings } from 'objection';
import { BaseModel } from './base';
import {
  FivemMoment,
  LicenseStatus,
  LockType,
  OrderStatus,
  PaymentMethodId,
  ProductType,
  SubscriptionStatus,
} from './types';

/** Orders and what they deliver: items, licences and activations, subscriptions, FiveM commands. */
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
