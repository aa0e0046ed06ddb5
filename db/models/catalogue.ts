import { Model, RelationMappings } from 'objection';
import { BaseModel } from './base';
import { Store } from './stores';
import { CustomField, FivemMoment, LockType, PaymentMethodId, PlanDuration, ProductType } from './types';

/** The catalogue: categories, products with their plans, FiveM commands and key stock, coupons. */
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
