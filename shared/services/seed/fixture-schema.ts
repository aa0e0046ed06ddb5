import { fitsTlv } from '../invoices/tlv';
import Joi from 'joi';
import type {
  CustomField,
  LicenseStatus,
  LockType,
  PaymentMethodId,
  PlanDuration,
  ProductType,
} from '../../../db/models';
import { PAYMENT_METHOD_IDS } from '../../../db/models';
import { DomainError } from '../../errors';
import { SUPPORTED_COUNTRY_CODES } from '../../phone';
import { SUPPORTED_CURRENCIES, UNKNOWN_CURRENCY_MESSAGE, currencyExponent } from '../../currency';
import { parseDecimal, parseMoney } from '../../money';

/**
 * The fixture format of CONTRACT section 4, checked in two passes: the joi schema (shape, types, enums,
 * formats) and then the references between lists, which joi cannot express with the fixture's own paths.
 * Either pass stops at the first bad field and names it as `stores[0].products[2].price`.
 */

/** A fixture the seed refuses; `path` is the bad field in the fixture's own keys ('' for the whole file). */
export class FixtureError extends DomainError {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super('INVALID', path ? `${path}: ${detail}` : detail, { path });
  }
}

// ---------------------------------------------------------------- validated shape

export type GatewayProvider = 'sandbox' | 'moyasar' | 'coinbase';
export type GatewayMethodId = 'card' | 'mada' | 'stcpay' | 'applepay' | 'coinbase';

interface AmountBounds {
  active: boolean;
  min_amount?: string;
  max_amount?: string;
}

export const CREDENTIAL_KEYS = ['secret_key', 'publishable_key', 'api_key', 'webhook_secret'] as const;
export type CredentialKey = (typeof CREDENTIAL_KEYS)[number];

export interface GatewayMethodFixture extends AmountBounds, Partial<Record<CredentialKey, string>> {
  provider: GatewayProvider;
}

export interface PaypalMethodFixture extends AmountBounds {
  email?: string;
  pay_link?: string;
}

export interface BankMethodFixture extends AmountBounds {
  bank_name: string;
  account_name: string;
  account_number: string;
  iban: string;
}

export type PaymentMethodsFixture = Partial<Record<GatewayMethodId, GatewayMethodFixture>> & {
  paypal?: PaypalMethodFixture;
  bank?: BankMethodFixture;
};

export interface PhoneFixture {
  country_code: string;
  phone: string;
}

export interface BlockedPhoneFixture extends PhoneFixture {
  reason?: string;
}

export interface CategoryFixture {
  ref: string;
  name: string;
  slug: string;
}

export interface FieldFixture {
  type: CustomField['type'];
  label: string;
  required: boolean;
  options?: { label: string; price: string }[];
}

export interface PlanFixture {
  ref: string;
  name: string;
  price: string;
  duration: PlanDuration;
  active: boolean;
}

export interface ProductLicenseFixture {
  prefix: string;
  lock_type: LockType;
  max_activations: number;
  encrypt: boolean;
}

export interface ProductFixture {
  ref: string;
  name: string;
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
  categories: string[];
  fields: FieldFixture[];
  codes: string[];
  plans: PlanFixture[];
  license?: ProductLicenseFixture | null;
  fivem_commands: {
    command: string;
    require_online: boolean;
    /** Optional (docs/fivem.md): `refund` templates are queued when the order is cancelled or refunded. */
    run_on: 'purchase' | 'refund' | 'renewal' | 'expiry';
    delay_seconds: number;
    inventory_slots: number | null;
  }[];
}

export interface CouponFixture {
  code: string;
  type: 'percentage' | 'fixed';
  amount: string;
  active: boolean;
  max_uses?: number | null;
  min_order?: string | null;
  products: string[];
  payment_restrictions: PaymentMethodId[];
  starts_at?: Date | null;
  expires_at?: Date | null;
}

export interface CustomerFixture extends PhoneFixture {
  ref: string;
  firstName: string;
  lastName: string;
  email: string;
}

export interface ReviewFixture {
  product?: string | null;
  customer?: string | null;
  rating: number;
  comment?: string | null;
  published: boolean;
}

export interface LicenseFixture {
  ref: string;
  product: string;
  plan?: string | null;
  customer?: string | null;
  key: string;
  status: LicenseStatus;
  starts_at?: Date | null;
  expires_at?: Date | null;
  metadata?: Record<string, unknown> | null;
}

export interface StoreFixture {
  ref: string;
  name: string;
  currency: string;
  domains: string[];
  plan: 'paid' | 'free';
  tax_mode: 'none' | 'inclusive' | 'exclusive';
  tax_rate: string;
  /** The seller on tax invoices (default: `name`); with `vat_number` the store issues simplified tax invoices. */
  legal_name?: string;
  vat_number?: string;
  /** The seller's address printed on invoices. */
  address?: string;
  embed_key?: string;
  allowed_origins: string[];
  /** Calling codes accepted for phone sign-in; absent or null: every code the platform supports. */
  allowed_country_codes: string[] | null;
  /** Days a buyer has to pay a bank transfer or manual PayPal order (1..30, default 3). */
  manual_payment_days: number;
  merchant_tokens: string[];
  fivem_secret?: string;
  blocked_phones: BlockedPhoneFixture[];
  /** The store owner, who signs in to the merchant dashboard with this phone. */
  owner?: { name: string; country_code: string; phone: string };
  payment_methods: PaymentMethodsFixture;
  categories: CategoryFixture[];
  products: ProductFixture[];
  coupons: CouponFixture[];
  customers: CustomerFixture[];
  reviews: ReviewFixture[];
  licenses: LicenseFixture[];
}

export interface Fixture {
  stores: StoreFixture[];
}

// ---------------------------------------------------------------- schema

const MONEY_MESSAGE = 'must be a decimal string with at most the currency’s decimals (ISO 4217)';
const PERCENT_MESSAGE = 'must be a decimal string with at most two decimals';

/**
 * A money (or, with `max`, percent) string. Money is checked here for its form, with as many decimals
 * as any currency has; checkStore then holds it to the store currency's own decimals (ISO 4217).
 * `max` is the largest value in hundredths (percent * 100 for rates).
 */
function decimal(max?: { minor: number; message: string }): Joi.StringSchema {
  const MONEY_MESSAGE_HERE = max ? PERCENT_MESSAGE : MONEY_MESSAGE;
  return Joi.string()
    .custom((value: string, helpers) => {
      const minor = parseDecimal(value, max ? 2 : 3);
      if (minor === null) return helpers.error('decimal.format');
      if (max && minor > max.minor) return helpers.error('decimal.range');
      return value;
    })
    .messages({
      'string.base': MONEY_MESSAGE_HERE,
      'string.empty': MONEY_MESSAGE_HERE,
      'decimal.format': MONEY_MESSAGE_HERE,
      'decimal.range': max?.message ?? MONEY_MESSAGE_HERE,
    });
}

const percent = (what: string): Joi.StringSchema =>
  decimal({ minor: 10_000, message: `must be between 0 and 100 for ${what}` });

// Strict: a fixture that says "5" where a number belongs, or "true" for a boolean, is a mistake to report.
const int = (): Joi.NumberSchema => Joi.number().integer().strict();
const bool = (): Joi.BooleanSchema => Joi.boolean().strict();
const text = (max: number): Joi.StringSchema => Joi.string().trim().min(1).max(max);
const isoDate = (): Joi.DateSchema =>
  Joi.date().iso().messages({
    'date.format': 'must be an ISO 8601 timestamp',
    'date.base': 'must be an ISO 8601 timestamp',
  });

const ref = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Za-z0-9_.:-]{1,100}$/)
    .messages({ 'string.pattern.base': 'must be 1 to 100 letters, digits, or _ . : -' });

const slug = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[a-z0-9]+(?:[-_][a-z0-9]+)*$/)
    .max(200)
    .messages({ 'string.pattern.base': 'must be lower-case letters and digits separated by - or _' });

const countryCode = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{1,4}$/)
    .messages({
      'string.base': 'must be a string of 1 to 4 digits without a plus sign',
      'string.pattern.base': 'must be a string of 1 to 4 digits without a plus sign',
    });

const phone = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{4,15}$/)
    .messages({
      'string.base': 'must be a string of 4 to 15 digits without the country code',
      'string.pattern.base': 'must be a string of 4 to 15 digits without the country code',
    });

const secret = (): Joi.StringSchema => Joi.string().min(8).max(200);

const origin = (): Joi.StringSchema =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .custom((value: string, helpers) =>
      new URL(value).origin === value ? value : helpers.error('origin.format'),
    )
    .messages({
      'origin.format': 'must be an origin such as https://shop.example.com (no path, no trailing slash)',
    });

const amountBounds = {
  active: bool().default(true),
  min_amount: decimal(),
  max_amount: decimal(),
};

const credential = (): Joi.StringSchema => Joi.string().min(1).max(500);

function gatewayMethod(providers: GatewayProvider[]): Joi.ObjectSchema {
  return Joi.object({
    provider: Joi.string()
      .valid(...providers)
      .required(),
    secret_key: credential().when('provider', { is: 'moyasar', then: Joi.required() }),
    publishable_key: credential(),
    api_key: credential().when('provider', { is: 'coinbase', then: Joi.required() }),
    webhook_secret: credential(),
    ...amountBounds,
  });
}

const paymentMethodsSchema = Joi.object({
  card: gatewayMethod(['sandbox', 'moyasar']),
  mada: gatewayMethod(['sandbox', 'moyasar']),
  stcpay: gatewayMethod(['sandbox', 'moyasar']),
  applepay: gatewayMethod(['sandbox', 'moyasar']),
  coinbase: gatewayMethod(['sandbox', 'coinbase']),
  paypal: Joi.object({
    email: Joi.string().email({ tlds: { allow: false } }),
    pay_link: Joi.string().uri({ scheme: ['https', 'http'] }),
    ...amountBounds,
  }).or('email', 'pay_link'),
  bank: Joi.object({
    bank_name: text(200).required(),
    account_name: text(200).required(),
    account_number: text(50).required(),
    iban: Joi.string()
      .pattern(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/)
      .required()
      .messages({
        'string.pattern.base': 'must be an IBAN: country letters, check digits, then letters and digits',
      }),
    ...amountBounds,
  }),
}).default({});

const fieldSchema = Joi.object({
  type: Joi.string()
    .valid('text', 'number', 'date', 'datetime', 'color', 'select', 'image', 'file')
    .required(),
  label: text(200).required(),
  required: bool().default(false),
  options: Joi.array()
    .items(Joi.object({ label: text(200).required(), price: decimal().default('0.00') }))
    .min(1)
    .when('type', {
      is: 'select',
      then: Joi.required(),
      otherwise: Joi.forbidden().messages({ 'any.unknown': 'is only allowed on a select field' }),
    }),
});

const planSchema = Joi.object({
  ref: ref().required(),
  name: text(200).required(),
  price: decimal().required(),
  duration: Joi.string().valid('monthly', 'quarterly', 'yearly', 'lifetime').required(),
  active: bool().default(true),
});

const productSchema = Joi.object({
  ref: ref().required(),
  name: text(200).required(),
  slug: slug().required(),
  type: Joi.string().valid('product', 'code', 'service', 'subscription').required(),
  description: Joi.string().max(5000).allow('', null),
  image_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2000)
    .allow(null),
  price: decimal().required(),
  sale_price: decimal().allow(null),
  active: bool().default(true),
  stock: int().min(0).allow(null),
  max_per_order: int().min(1).max(10_000).default(10),
  categories: Joi.array().items(ref()).default([]),
  fields: Joi.array().items(fieldSchema).default([]),
  codes: Joi.array().items(Joi.string().min(1).max(500)).default([]),
  plans: Joi.array().items(planSchema).default([]),
  license: Joi.object({
    prefix: Joi.string()
      .pattern(/^[A-Za-z0-9]{1,20}$/)
      .required()
      .messages({ 'string.pattern.base': 'must be 1 to 20 letters or digits' }),
    lock_type: Joi.string().valid('none', 'hwid', 'ip').default('none'),
    max_activations: int().min(0).default(0),
    encrypt: bool().default(false),
  }).allow(null),
  fivem_commands: Joi.array()
    .items(
      Joi.object({
        command: text(1000).required(),
        require_online: bool().default(false),
        run_on: Joi.string().valid('purchase', 'refund', 'renewal', 'expiry').default('purchase'),
        delay_seconds: int().min(0).max(2_592_000).default(0),
        inventory_slots: int().min(1).max(1000).allow(null).default(null),
      }),
    )
    .default([]),
});

const couponSchema = Joi.object({
  code: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,100}$/)
    .required()
    .messages({ 'string.pattern.base': 'must be 1 to 100 letters, digits, - or _' }),
  type: Joi.string().valid('percentage', 'fixed').required(),
  amount: Joi.when('type', {
    is: 'percentage',
    then: percent('a percentage coupon').required(),
    otherwise: decimal().required(),
  }),
  active: bool().default(true),
  max_uses: int().min(1).allow(null),
  min_order: decimal().allow(null),
  products: Joi.array().items(ref()).default([]),
  payment_restrictions: Joi.array()
    .items(Joi.string().valid(...PAYMENT_METHOD_IDS))
    .unique()
    .default([]),
  starts_at: isoDate().allow(null),
  expires_at: isoDate().allow(null),
});

const customerSchema = Joi.object({
  ref: ref().required(),
  firstName: text(100).required(),
  lastName: text(100).required(),
  email: Joi.string()
    .email({ tlds: { allow: false } })
    .max(254)
    .required(),
  country_code: countryCode().required(),
  phone: phone().required(),
});

const reviewSchema = Joi.object({
  product: ref().allow(null),
  customer: ref().allow(null),
  rating: int().min(1).max(5).required(),
  comment: Joi.string().max(5000).allow(null),
  published: bool().default(true),
});

const licenseSchema = Joi.object({
  ref: ref().required(),
  product: ref().required(),
  plan: ref().allow(null),
  customer: ref().allow(null),
  key: Joi.string()
    .pattern(/^[A-Za-z0-9-]{4,100}$/)
    .required()
    .messages({ 'string.pattern.base': 'must be 4 to 100 letters, digits or dashes' }),
  status: Joi.string().valid('generated', 'active', 'expired', 'suspended', 'revoked').default('active'),
  starts_at: isoDate().allow(null),
  expires_at: isoDate().allow(null),
  metadata: Joi.object().unknown(true).allow(null),
});

const storeSchema = Joi.object({
  ref: ref().required(),
  name: text(200).required(),
  currency: Joi.string()
    .pattern(/^[A-Z]{3}$/)
    .valid(...SUPPORTED_CURRENCIES)
    .required()
    .messages({
      'string.pattern.base': 'must be a three-letter upper-case currency code',
      'any.only': UNKNOWN_CURRENCY_MESSAGE,
    }),
  domains: Joi.array().items(Joi.string().hostname().lowercase().max(253)).default([]),
  plan: Joi.string().valid('paid', 'free').default('free'),
  tax_mode: Joi.string().valid('none', 'inclusive', 'exclusive').default('none'),
  tax_rate: percent('a tax rate').default('0'),
  legal_name: text(200)
    .custom((value: string, helpers) => (fitsTlv(value) ? value : helpers.error('legal_name.bytes')))
    .messages({
      'legal_name.bytes': 'must be at most 255 bytes in UTF-8 (it is printed in the invoice QR code)',
    }),
  // The operator contract's wording: 15 digits. The Merchant API also checks ZATCA's form (3...3).
  vat_number: Joi.string()
    .pattern(/^\d{15}$/)
    .messages({ 'string.pattern.base': 'must be exactly 15 digits' }),
  address: text(500),
  embed_key: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{8,100}$/)
    .messages({ 'string.pattern.base': 'must be 8 to 100 letters, digits, - or _' }),
  allowed_origins: Joi.array().items(origin()).default([]),
  manual_payment_days: int().min(1).max(30).default(3),
  allowed_country_codes: Joi.array()
    .items(
      countryCode()
        .valid(...SUPPORTED_COUNTRY_CODES)
        .messages({ 'any.only': 'must be a country calling code the platform supports' }),
    )
    .min(1)
    .unique()
    .allow(null)
    .default(null),
  merchant_tokens: Joi.array().items(secret()).default([]),
  fivem_secret: secret(),
  blocked_phones: Joi.array()
    .items(
      Joi.object({
        country_code: countryCode().required(),
        phone: phone().required(),
        reason: Joi.string().max(200),
      }),
    )
    .default([]),
  owner: Joi.object({
    name: text(200).allow('').default(''),
    country_code: countryCode().required(),
    phone: phone().required(),
  }),
  payment_methods: paymentMethodsSchema,
  categories: Joi.array()
    .items(Joi.object({ ref: ref().required(), name: text(200).required(), slug: slug().required() }))
    .default([]),
  products: Joi.array().items(productSchema).default([]),
  coupons: Joi.array().items(couponSchema).default([]),
  customers: Joi.array().items(customerSchema).default([]),
  reviews: Joi.array().items(reviewSchema).default([]),
  licenses: Joi.array().items(licenseSchema).default([]),
});

const fixtureSchema = Joi.object({ stores: Joi.array().items(storeSchema).required() }).required();

// ---------------------------------------------------------------- references

/** `['stores', 0, 'products', 2, 'price']` -> `stores[0].products[2].price` */
export function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out ? `${out}.${key}` : key;
  }, '');
}

/** Remembers the first place a value was seen in a list, and refuses a second occurrence. */
class UniqueKeys {
  private readonly seen = new Set<string>();

  constructor(private readonly what: string) {}

  add(value: string, path: string): void {
    if (this.seen.has(value)) throw new FixtureError(path, `duplicate ${this.what} "${value}"`);
    this.seen.add(value);
  }
}

function checkBounds(bounds: AmountBounds, path: string, currency: string): void {
  checkAmount(bounds.min_amount, `${path}.min_amount`, currency);
  checkAmount(bounds.max_amount, `${path}.max_amount`, currency);
  if (bounds.min_amount === undefined || bounds.max_amount === undefined) return;
  if ((parseMoney(bounds.max_amount, currency) ?? 0) < (parseMoney(bounds.min_amount, currency) ?? 0)) {
    throw new FixtureError(`${path}.max_amount`, 'must not be below min_amount');
  }
}

/** An amount of the store's currency has at most that currency's decimals (ISO 4217: KWD 3, JPY 0). */
function checkAmount(value: string | null | undefined, path: string, currency: string): void {
  if (value === null || value === undefined || parseMoney(value, currency) !== null) return;
  const decimals = currencyExponent(currency);
  // Two decimals keep the operator contract's own wording (docs/operations.md, fixture format).
  throw new FixtureError(
    path,
    decimals === 0
      ? `must be a whole amount: ${currency} has no decimals`
      : `must be a decimal string with at most ${decimals === 2 ? 'two' : 'three'} decimals` +
          (decimals === 2 ? '' : ` (${currency})`),
  );
}

function checkStoreAmounts(store: StoreFixture, at: string): void {
  const currency = store.currency;
  store.products.forEach((product, i) => {
    const p = `${at}.products[${i}]`;
    checkAmount(product.price, `${p}.price`, currency);
    checkAmount(product.sale_price, `${p}.sale_price`, currency);
    product.fields.forEach((field, j) =>
      (field.options ?? []).forEach((option, k) =>
        checkAmount(option.price, `${p}.fields[${j}].options[${k}].price`, currency),
      ),
    );
    product.plans.forEach((plan, j) => checkAmount(plan.price, `${p}.plans[${j}].price`, currency));
  });
  store.coupons.forEach((coupon, i) => {
    if (coupon.type === 'fixed') checkAmount(coupon.amount, `${at}.coupons[${i}].amount`, currency);
    checkAmount(coupon.min_order, `${at}.coupons[${i}].min_order`, currency);
  });
}

function checkStore(store: StoreFixture, at: string): void {
  if (store.vat_number !== undefined && store.tax_mode === 'exclusive') {
    throw new FixtureError(
      `${at}.tax_mode`,
      'must be inclusive for a store with a vat_number (prices include VAT)',
    );
  }
  for (const [method, bounds] of Object.entries(store.payment_methods)) {
    if (bounds) checkBounds(bounds, `${at}.payment_methods.${method}`, store.currency);
  }
  checkStoreAmounts(store, at);

  const categoryRefs = new UniqueKeys('category ref');
  const categorySlugs = new UniqueKeys('category slug');
  store.categories.forEach((category, i) => {
    categoryRefs.add(category.ref, `${at}.categories[${i}].ref`);
    categorySlugs.add(category.slug, `${at}.categories[${i}].slug`);
  });
  const categories = new Set(store.categories.map((c) => c.ref));

  const productRefs = new UniqueKeys('product ref');
  const productSlugs = new UniqueKeys('product slug');
  const plansByProduct = new Map<string, Set<string>>();
  store.products.forEach((product, i) => {
    const p = `${at}.products[${i}]`;
    productRefs.add(product.ref, `${p}.ref`);
    productSlugs.add(product.slug, `${p}.slug`);
    const linked = new UniqueKeys('category');
    product.categories.forEach((categoryRef, j) => {
      if (!categories.has(categoryRef)) {
        throw new FixtureError(`${p}.categories[${j}]`, `unknown category ref "${categoryRef}"`);
      }
      linked.add(categoryRef, `${p}.categories[${j}]`);
    });
    const planRefs = new UniqueKeys('plan ref');
    product.plans.forEach((plan, j) => planRefs.add(plan.ref, `${p}.plans[${j}].ref`));
    const codes = new UniqueKeys('code');
    product.codes.forEach((code, j) => codes.add(code, `${p}.codes[${j}]`));
    plansByProduct.set(product.ref, new Set(product.plans.map((plan) => plan.ref)));
  });

  const couponCodes = new UniqueKeys('coupon code');
  store.coupons.forEach((coupon, i) => {
    const p = `${at}.coupons[${i}]`;
    couponCodes.add(coupon.code.toLowerCase(), `${p}.code`);
    const linked = new UniqueKeys('product');
    coupon.products.forEach((productRef, j) => {
      if (!plansByProduct.has(productRef)) {
        throw new FixtureError(`${p}.products[${j}]`, `unknown product ref "${productRef}"`);
      }
      linked.add(productRef, `${p}.products[${j}]`);
    });
    if (coupon.starts_at && coupon.expires_at && coupon.expires_at < coupon.starts_at) {
      throw new FixtureError(`${p}.expires_at`, 'must not be before starts_at');
    }
  });

  const customerRefs = new UniqueKeys('customer ref');
  const customerPhones = new UniqueKeys('customer phone');
  store.customers.forEach((customer, i) => {
    customerRefs.add(customer.ref, `${at}.customers[${i}].ref`);
    customerPhones.add(customer.country_code + customer.phone, `${at}.customers[${i}].phone`);
  });
  const customers = new Set(store.customers.map((c) => c.ref));

  store.reviews.forEach((review, i) => {
    const p = `${at}.reviews[${i}]`;
    if (review.product != null && !plansByProduct.has(review.product)) {
      throw new FixtureError(`${p}.product`, `unknown product ref "${review.product}"`);
    }
    if (review.customer != null && !customers.has(review.customer)) {
      throw new FixtureError(`${p}.customer`, `unknown customer ref "${review.customer}"`);
    }
  });

  const licenseRefs = new UniqueKeys('license ref');
  store.licenses.forEach((license, i) => {
    const p = `${at}.licenses[${i}]`;
    licenseRefs.add(license.ref, `${p}.ref`);
    const plans = plansByProduct.get(license.product);
    if (!plans) throw new FixtureError(`${p}.product`, `unknown product ref "${license.product}"`);
    if (license.plan != null && !plans.has(license.plan)) {
      throw new FixtureError(`${p}.plan`, `"${license.plan}" is not a plan of product "${license.product}"`);
    }
    if (license.customer != null && !customers.has(license.customer)) {
      throw new FixtureError(`${p}.customer`, `unknown customer ref "${license.customer}"`);
    }
  });
}

/** Values that are unique on the whole platform, so two stores of one fixture cannot share them either. */
function checkAcrossStores(fixture: Fixture): void {
  const storeRefs = new UniqueKeys('store ref');
  const embedKeys = new UniqueKeys('embed key');
  const domains = new UniqueKeys('domain');
  const merchantTokens = new UniqueKeys('merchant token');
  const fivemSecrets = new UniqueKeys('FiveM secret');
  const licenseKeys = new UniqueKeys('license key');
  fixture.stores.forEach((store, i) => {
    const at = `stores[${i}]`;
    storeRefs.add(store.ref, `${at}.ref`);
    if (store.embed_key !== undefined) embedKeys.add(store.embed_key, `${at}.embed_key`);
    // A domain listed twice in one store is harmless; the same domain in two stores is not.
    new Set(store.domains).forEach((domain) =>
      domains.add(domain, `${at}.domains[${store.domains.indexOf(domain)}]`),
    );
    new Set(store.merchant_tokens).forEach((token) =>
      merchantTokens.add(token, `${at}.merchant_tokens[${store.merchant_tokens.indexOf(token)}]`),
    );
    if (store.fivem_secret !== undefined) fivemSecrets.add(store.fivem_secret, `${at}.fivem_secret`);
    store.licenses.forEach((license, j) => licenseKeys.add(license.key, `${at}.licenses[${j}].key`));
  });
}

/**
 * Checks a parsed fixture against CONTRACT section 4 and returns it with defaults filled in. Throws a
 * FixtureError naming the first bad field.
 */
export function validateFixture(input: unknown): Fixture {
  const { error, value } = fixtureSchema.validate(input, {
    abortEarly: true,
    convert: true,
    errors: { label: false },
  });
  if (error) {
    const detail = error.details[0];
    throw new FixtureError(formatPath(detail.path) || 'fixture', detail.message);
  }
  const fixture = value as Fixture;
  fixture.stores.forEach((store, i) => checkStore(store, `stores[${i}]`));
  checkAcrossStores(fixture);
  return fixture;
}
