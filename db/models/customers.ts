import { Model, RelationMappings } from 'objection';
import { BaseModel } from './base';

/** Buyers: accounts, access tokens, OTP sessions, wishlists and reviews. */
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
