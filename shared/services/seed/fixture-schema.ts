import Joi from 'joi';
import { type StoreSettingsKeys, storeSettingsSchema } from '../stores/settings-schema';
import { fitsTlv } from '../invoices/tlv';
import type { LicenseStatus } from '../../../db/models';
import { DomainError } from '../../errors';
import { SUPPORTED_COUNTRY_CODES } from '../../phone';
import { currencyExponent } from '../../currency';
import { parseMoney } from '../../money';
import {
  bool,
  couponSchema,
  int,
  isoDate,
  percent,
  productSchema,
  ref,
  slug,
  text,
  type CouponKeys,
  type FieldInput,
  type LicenseInput,
  type PlanInput,
  type ProductKeys,
} from '../catalogue/schema';
import {
  type AmountBounds,
  blockedPhoneSchema,
  countryCode,
  currency,
  domain,
  origin,
  paymentMethodsSchema,
  type PaymentMethodsFixture,
  phone,
  storePageKeys,
  type StorePageKeys,
  storeSlug,
} from '../catalogue/store-schema';

/**
 * The fixture format of the operator contract (docs/operations.md) (products and coupons: the one schema the Merchant API shares,
 * shared/services/catalogue/schema.ts), checked in two passes: the joi schema (shape, types, enums,
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

export type {
  BankMethodFixture,
  CredentialKey,
  GatewayMethodFixture,
  GatewayMethodId,
  GatewayProvider,
  PaymentMethodsFixture,
  PaypalMethodFixture,
} from '../catalogue/store-schema';
export { CREDENTIAL_KEYS } from '../catalogue/store-schema';

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
  name_ar?: string | null;
  description?: string | null;
  description_ar?: string | null;
  slug: string;
}

export type FieldFixture = FieldInput;
export type PlanFixture = PlanInput & { ref: string };
export type ProductLicenseFixture = LicenseInput;

/** A product of the fixture: the Merchant API's product keys, with categories named by ref. */
export interface ProductFixture extends ProductKeys<string> {
  ref: string;
  plans: PlanFixture[];
}

/** A coupon of the fixture: the Merchant API's coupon keys, with products named by ref. */
export type CouponFixture = CouponKeys<string>;

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

export interface StoreFixture extends StorePageKeys {
  ref: string;
  /** The store page's address `/s/{slug}`; default: the ref (lower-cased, other characters as hyphens). */
  slug?: string;
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
  /** `simulation`: e-invoicing phase 2 with a self-issued test certificate (docs/einvoicing.md). */
  einvoicing?: 'simulation';
  embed_key?: string;
  allowed_origins: string[];
  merchant_tokens: string[];
  fivem_secret?: string;
  /** Calling codes accepted for phone sign-in; absent or null: every code the platform supports. */
  allowed_country_codes: string[] | null;
  /** Days a buyer has to pay a bank transfer or manual PayPal order (1..30, default 3). */
  manual_payment_days: number;
  blocked_phones: BlockedPhoneFixture[];
  /** Store settings: the fraud controls' keys (docs/fraud.md) and growth's (docs/growth.md). */
  settings?: StoreSettingsKeys;
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

const secret = (): Joi.StringSchema => Joi.string().min(8).max(200);

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
  slug: storeSlug(),
  ...storePageKeys,
  name: text(200).required(),
  currency: currency().required(),
  domains: Joi.array().items(domain()).default([]),
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
  einvoicing: Joi.string().valid('simulation'),
  embed_key: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{8,100}$/)
    .messages({ 'string.pattern.base': 'must be 8 to 100 letters, digits, - or _' }),
  allowed_origins: Joi.array().items(origin()).default([]),
  merchant_tokens: Joi.array().items(secret()).default([]),
  fivem_secret: secret(),
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
  blocked_phones: Joi.array().items(blockedPhoneSchema).default([]),
  settings: storeSettingsSchema,
  owner: Joi.object({
    name: text(200).allow('').default(''),
    country_code: countryCode().required(),
    phone: phone().required(),
  }),
  payment_methods: paymentMethodsSchema('fixture'),
  categories: Joi.array()
    .items(
      Joi.object({
        ref: ref().required(),
        name: text(200).required(),
        name_ar: text(200).allow(null),
        description: Joi.string().max(5000).allow('', null),
        description_ar: Joi.string().max(5000).allow('', null),
        slug: slug().required(),
      }),
    )
    .default([]),
  products: Joi.array().items(productSchema('fixture')).default([]),
  coupons: Joi.array().items(couponSchema('fixture')).default([]),
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
  if (store.einvoicing !== undefined && (store.vat_number === undefined || store.currency !== 'SAR')) {
    throw new FixtureError(
      `${at}.einvoicing`,
      'needs a vat_number and currency SAR (ZATCA documents are in SAR)',
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
 * Checks a parsed fixture against the operator contract (docs/operations.md) and returns it with defaults filled in. Throws a
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
