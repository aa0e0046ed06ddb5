import Joi from 'joi';
import type { CustomField, LockType, PaymentMethodId, PlanDuration, ProductType } from '../../../db/models';
import { PAYMENT_METHOD_IDS } from '../../../db/models';
import { parseDecimal } from '../../money';

/**
 * One schema of a product and of a coupon, shared by the fixture loader (`npm run seed`) and the Merchant
 * API, so the two can never drift: a key the fixture accepts, the API accepts with the same rules and the
 * same messages.
 *
 * The two differ only where they must:
 * - `fixture`: references are the file's own `ref` handles (categories, coupon products), every product
 *   carries its `ref`, plans carry theirs;
 * - `create` (POST): references are ids; no `ref`;
 * - `patch` (PATCH): like `create`, but every key optional and no defaults filled in (a key left out keeps
 *   its stored value), and `codes` refused: key stock has its own route.
 */
export type SchemaMode = 'fixture' | 'create' | 'patch';

// ---------------------------------------------------------------- field schemas

export const MONEY_MESSAGE = 'must be a decimal string with at most the currency’s decimals (ISO 4217)';
const PERCENT_MESSAGE = 'must be a decimal string with at most two decimals';

/**
 * A money (or, with `max`, percent) string. Money is checked here for its form, with as many decimals as
 * any currency has (three); the store's own currency then holds it to its decimals (ISO 4217).
 * `max` is the largest value in hundredths (percent * 100 for rates).
 */
export function decimal(max?: { minor: number; message: string }): Joi.StringSchema {
  const message = max ? PERCENT_MESSAGE : MONEY_MESSAGE;
  return Joi.string()
    .custom((value: string, helpers) => {
      const minor = parseDecimal(value, max ? 2 : 3);
      if (minor === null) return helpers.error('decimal.format');
      if (max && minor > max.minor) return helpers.error('decimal.range');
      return value;
    })
    .messages({
      'string.base': message,
      'string.empty': message,
      'decimal.format': message,
      'decimal.range': max?.message ?? message,
    });
}

export const percent = (what: string): Joi.StringSchema =>
  decimal({ minor: 10_000, message: `must be between 0 and 100 for ${what}` });

// Strict: a body that says "5" where a number belongs, or "true" for a boolean, is a mistake to report.
export const int = (): Joi.NumberSchema => Joi.number().integer().strict();
export const bool = (): Joi.BooleanSchema => Joi.boolean().strict();
export const text = (max: number): Joi.StringSchema => Joi.string().trim().min(1).max(max);
export const isoDate = (): Joi.DateSchema =>
  Joi.date().iso().messages({
    'date.format': 'must be an ISO 8601 timestamp',
    'date.base': 'must be an ISO 8601 timestamp',
  });

export const ref = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Za-z0-9_.:-]{1,100}$/)
    .messages({ 'string.pattern.base': 'must be 1 to 100 letters, digits, or _ . : -' });

export const slug = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/)
    .max(200)
    .messages({ 'string.pattern.base': 'must be lower-case letters and digits separated by - or _' });

/** A row id as the API takes it: a positive integer Postgres's `integer` holds. */
export const rowId = (): Joi.NumberSchema => int().positive().max(2_147_483_647);

/** One key of a `code` product's stock. */
export const codeKey = (): Joi.StringSchema => Joi.string().trim().min(1).max(500);

// ---------------------------------------------------------------- product

export interface FieldInput {
  type: CustomField['type'];
  label: string;
  /** The Arabic label, shown to Arabic readers (docs/store-pages.md). */
  label_ar?: string | null;
  required: boolean;
  options?: { label: string; label_ar?: string | null; price: string }[];
}

export interface PlanInput {
  /** Fixture only: the plan's handle in the file. */
  ref?: string;
  /** API only: an existing plan of the product, updated in place (its id stays on orders). */
  id?: number;
  name: string;
  price: string;
  duration: PlanDuration;
  active: boolean;
}

export interface LicenseInput {
  prefix: string;
  lock_type: LockType;
  max_activations: number;
  encrypt: boolean;
}

export interface FivemCommandInput {
  command: string;
  require_online: boolean;
  /**
   * `refund` templates are queued when the order is cancelled or refunded, `renewal` on a subscription's
   * renewal order, `expiry` when the subscription ends (docs/fivem.md).
   */
  run_on: 'purchase' | 'refund' | 'renewal' | 'expiry';
  delay_seconds: number;
  inventory_slots: number | null;
}

/** A product's keys; `R` is how it names categories: refs in a fixture, ids through the API. */
export interface ProductKeys<R> {
  name: string;
  /** The Arabic name and description, shown to Arabic readers (falling back to the English ones). */
  name_ar?: string | null;
  description_ar?: string | null;
  slug: string;
  type: ProductType;
  description?: string | null;
  image_url?: string | null;
  price: string;
  sale_price?: string | null;
  active: boolean;
  stock?: number | null;
  /** Most units one checkout line may take (default 10). */
  max_per_order: number;
  /** Downloads allowed per file and order item (docs/downloads.md; default 5, 0: no limit). */
  download_limit: number;
  categories: R[];
  fields: FieldInput[];
  codes: string[];
  plans: PlanInput[];
  license?: LicenseInput | null;
  fivem_commands: FivemCommandInput[];
}

export type ProductInput = ProductKeys<number>;
export type ProductPatch = Partial<Omit<ProductInput, 'codes'>>;

const fieldSchema = Joi.object({
  type: Joi.string()
    .valid('text', 'number', 'date', 'datetime', 'color', 'select', 'image', 'file')
    .required(),
  label: text(200).required(),
  label_ar: text(200).allow(null),
  required: bool().default(false),
  options: Joi.array()
    .items(
      Joi.object({
        label: text(200).required(),
        label_ar: text(200).allow(null),
        price: decimal().default('0.00'),
      }),
    )
    .min(1)
    .max(100)
    .when('type', {
      is: 'select',
      then: Joi.required(),
      otherwise: Joi.forbidden().messages({ 'any.unknown': 'is only allowed on a select field' }),
    }),
});

function planSchema(mode: SchemaMode): Joi.ObjectSchema {
  return Joi.object({
    ...(mode === 'fixture' ? { ref: ref().required() } : { id: rowId(), ref: ref() }),
    name: text(200).required(),
    price: decimal().required(),
    duration: Joi.string().valid('monthly', 'quarterly', 'yearly', 'lifetime').required(),
    active: bool().default(true),
  });
}

const licenseSchema = Joi.object({
  prefix: Joi.string()
    .pattern(/^[A-Za-z0-9]{1,20}$/)
    .required()
    .messages({ 'string.pattern.base': 'must be 1 to 20 letters or digits' }),
  lock_type: Joi.string().valid('none', 'hwid', 'ip').default('none'),
  max_activations: int().min(0).max(1_000_000).default(0),
  encrypt: bool().default(false),
}).allow(null);

const fivemCommandSchema = Joi.object({
  command: text(1000).required(),
  require_online: bool().default(false),
  run_on: Joi.string().valid('purchase', 'refund', 'renewal', 'expiry').default('purchase'),
  delay_seconds: int().min(0).max(2_592_000).default(0),
  inventory_slots: int().min(1).max(1000).allow(null).default(null),
});

/** Most codes one request (or one fixture product) may add: 10,000. */
export const MAX_CODES_PER_REQUEST = 10_000;

/** The keys of a product, for `mode`. */
export function productKeys(mode: SchemaMode): Joi.PartialSchemaMap {
  const patch = mode === 'patch';
  const req = <S extends Joi.Schema>(s: S): S => (patch ? s : (s.required() as S));
  const def = <S extends Joi.Schema>(s: S, value: Joi.BasicType): S => (patch ? s : (s.default(value) as S));
  const reference = mode === 'fixture' ? ref() : rowId();
  return {
    ...(mode === 'fixture' ? { ref: ref().required() } : {}),
    name: req(text(200)),
    name_ar: text(200).allow(null),
    slug: req(slug()),
    type: req(Joi.string().valid('product', 'code', 'service', 'subscription')),
    description: Joi.string().max(5000).allow('', null),
    description_ar: Joi.string().max(5000).allow('', null),
    image_url: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .max(2000)
      .allow(null),
    price: req(decimal()),
    sale_price: decimal().allow(null),
    active: def(bool(), true),
    stock: int().min(0).max(2_147_483_647).allow(null),
    max_per_order: def(int().min(1).max(10_000), 10),
    download_limit: def(int().min(0).max(1_000_000), 5),
    categories: def(Joi.array().items(reference).max(100), []),
    fields: def(Joi.array().items(fieldSchema).max(50), []),
    codes: patch
      ? Joi.any().forbidden().messages({
          'any.unknown': 'cannot be changed here: add key stock with POST /shawarma/products/<id>/codes',
        })
      : mode === 'fixture'
        ? Joi.array().items(codeKey()).default([])
        : Joi.array().items(codeKey()).max(MAX_CODES_PER_REQUEST).default([]),
    plans: def(Joi.array().items(planSchema(mode)).max(50), []),
    license: licenseSchema,
    fivem_commands: def(Joi.array().items(fivemCommandSchema).max(50), []),
  };
}

export const productSchema = (mode: SchemaMode): Joi.ObjectSchema =>
  Joi.object(productKeys(mode)).messages({ 'object.unknown': '{{#label}} is not a product key' });

// ---------------------------------------------------------------- coupon

export interface CouponKeys<R> {
  code: string;
  type: 'percentage' | 'fixed';
  amount: string;
  active: boolean;
  max_uses?: number | null;
  min_order?: string | null;
  products: R[];
  payment_restrictions: PaymentMethodId[];
  starts_at?: Date | null;
  expires_at?: Date | null;
}

export type CouponInput = CouponKeys<number>;
export type CouponPatch = Partial<CouponInput>;

export const COUPON_CODE = /^[A-Za-z0-9_-]{1,100}$/;

export function couponKeys(mode: SchemaMode): Joi.PartialSchemaMap {
  const patch = mode === 'patch';
  const req = <S extends Joi.Schema>(s: S): S => (patch ? s : (s.required() as S));
  const def = <S extends Joi.Schema>(s: S, value: Joi.BasicType): S => (patch ? s : (s.default(value) as S));
  return {
    code: req(
      Joi.string()
        .pattern(COUPON_CODE)
        .messages({ 'string.pattern.base': 'must be 1 to 100 letters, digits, - or _' }),
    ),
    type: req(Joi.string().valid('percentage', 'fixed')),
    // Without `type` (a PATCH of the amount alone) the stored type decides the range, checked by the service.
    amount: Joi.when('type', {
      is: 'percentage',
      then: req(percent('a percentage coupon')),
      otherwise: req(decimal()),
    }),
    active: def(bool(), true),
    max_uses: int().min(1).max(2_147_483_647).allow(null),
    min_order: decimal().allow(null),
    products: def(
      Joi.array()
        .items(mode === 'fixture' ? ref() : rowId())
        .max(1000),
      [],
    ),
    payment_restrictions: def(
      Joi.array()
        .items(Joi.string().valid(...PAYMENT_METHOD_IDS))
        .unique(),
      [],
    ),
    starts_at: isoDate().allow(null),
    expires_at: isoDate().allow(null),
  };
}

export const couponSchema = (mode: SchemaMode): Joi.ObjectSchema => Joi.object(couponKeys(mode));

// ---------------------------------------------------------------- category

export interface CategoryInput {
  name: string;
  /** The Arabic name and the descriptions, picked by the reader's language. */
  name_ar?: string | null;
  description?: string | null;
  description_ar?: string | null;
  slug: string;
  position?: number;
}

export function categoryKeys(mode: SchemaMode): Joi.PartialSchemaMap {
  const patch = mode === 'patch';
  return {
    ...(mode === 'fixture' ? { ref: ref().required() } : {}),
    name: patch ? text(200) : text(200).required(),
    name_ar: text(200).allow(null),
    description: Joi.string().max(5000).allow('', null),
    description_ar: Joi.string().max(5000).allow('', null),
    slug: patch ? slug() : slug().required(),
    ...(mode === 'fixture' ? {} : { position: int().min(0).max(100_000) }),
  };
}
