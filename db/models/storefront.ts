import { BaseModel } from './base';

/** One line of a checkout (db/migrations/20261123000070_storefront.ts). */
export class CheckoutItem extends BaseModel {
  static override tableName = 'checkout_items';
  static override jsonAttributes = ['fields'];
  id!: number;
  checkout_id!: number;
  position!: number;
  product_id!: number;
  plan_id!: number | null;
  quantity!: number;
  unit_price_minor!: number;
  addons_minor!: number;
  subtotal_minor!: number;
  fields!: Record<string, unknown>;
  reserved!: boolean;
}

/** A signed-in customer's cart (customer_id) or an anonymous visitor's (token_hash). */
export class Cart extends BaseModel {
  static override tableName = 'carts';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  customer_id!: number | null;
  token_hash!: string | null;
  coupon_code!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class CartItem extends BaseModel {
  static override tableName = 'cart_items';
  static override jsonAttributes = ['fields'];
  static override hasUpdatedAt = true;
  id!: number;
  cart_id!: number;
  product_id!: number;
  plan_id!: number | null;
  quantity!: number;
  fields!: Record<string, unknown>;
  created_at!: Date;
  updated_at!: Date;
}
