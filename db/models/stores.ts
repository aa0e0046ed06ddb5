import { Model, RelationMappings } from 'objection';
import { BaseModel } from './base';
import { PaymentMethodId } from './types';

/** The store and what configures it: domains, payment methods, merchant tokens, game servers, blocked phones. */
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
