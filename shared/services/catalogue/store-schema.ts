import Joi from 'joi';
import { SUPPORTED_CURRENCIES, UNKNOWN_CURRENCY_MESSAGE } from '../../currency';
import { bool, decimal, text } from './schema';

/**
 * The store settings both the fixture loader and the Merchant API (`PATCH /shawarma/store`) take: payment
 * methods in the fixture's format, origins, domains, blocked phones. One definition, so the two agree.
 *
 * In `patch` mode a method may be `null` (removed) and its credentials may be left out: the stored ones are
 * kept when the provider stays the same (credentials are write-only, so a client cannot send them back).
 * Whether a provider's required credential is then present is checked on the merged method.
 */

export type GatewayProvider = 'sandbox' | 'moyasar' | 'coinbase';
export type GatewayMethodId = 'card' | 'mada' | 'stcpay' | 'applepay' | 'coinbase';

export interface AmountBounds {
  active: boolean;
  min_amount?: string;
  max_amount?: string;
}

export const CREDENTIAL_KEYS = ['secret_key', 'publishable_key', 'api_key', 'webhook_secret'] as const;
export type CredentialKey = (typeof CREDENTIAL_KEYS)[number];

/** Which credential each provider cannot work without. */
export const REQUIRED_CREDENTIAL: Partial<Record<GatewayProvider, CredentialKey>> = {
  moyasar: 'secret_key',
  coinbase: 'api_key',
};

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

/** PATCH: a method given replaces that method's settings; `null` removes it. */
export type PaymentMethodsPatch = {
  [K in keyof PaymentMethodsFixture]?: PaymentMethodsFixture[K] | null;
};

export type StoreSchemaMode = 'fixture' | 'patch';

export const countryCode = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{1,4}$/)
    .messages({
      'string.base': 'must be a string of 1 to 4 digits without a plus sign',
      'string.pattern.base': 'must be a string of 1 to 4 digits without a plus sign',
    });

export const phone = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{4,15}$/)
    .messages({
      'string.base': 'must be a string of 4 to 15 digits without the country code',
      'string.pattern.base': 'must be a string of 4 to 15 digits without the country code',
    });

export const origin = (): Joi.StringSchema =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .custom((value: string, helpers) =>
      new URL(value).origin === value ? value : helpers.error('origin.format'),
    )
    .messages({
      'origin.format': 'must be an origin such as https://shop.example.com (no path, no trailing slash)',
    });

/** A storefront host: lower-case, no port. */
export const domain = (): Joi.StringSchema => Joi.string().hostname().lowercase().max(253);

/**
 * A store's slug, its page address `/s/{slug}` (docs/store-pages.md): lower-case letters, digits and single
 * hyphens, 1 to 63 characters (a DNS label, so `{slug}.<STORE_DOMAIN_SUFFIX>` is a host name too).
 */
export const STORE_SLUG = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,62}$/;
export const storeSlug = (): Joi.StringSchema =>
  Joi.string().pattern(STORE_SLUG).max(63).messages({
    'string.pattern.base': 'must be 1 to 63 lower-case letters, digits and single hyphens inside',
  });

/** The slug a store gets from a handle (a fixture ref): lower-cased, other characters as hyphens. */
export function slugFromHandle(handle: string): string {
  const out = handle
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return out || 'store';
}

/** The store page's own keys (fixture and Merchant API): description, logo, accent colour, policies. */
export const storePageKeys = {
  description: Joi.string().trim().max(500).allow('', null),
  logo_url: Joi.string()
    .uri({ scheme: ['https', 'http'] })
    .max(2000)
    .allow('', null),
  accent_color: Joi.string()
    .pattern(/^#[0-9a-fA-F]{6}$/)
    .lowercase()
    .allow('', null)
    .messages({ 'string.pattern.base': 'must be a colour as #rrggbb' }),
  policies: Joi.string().max(20_000).allow('', null),
};
export interface StorePageKeys {
  description?: string | null;
  logo_url?: string | null;
  accent_color?: string | null;
  policies?: string | null;
}

export const currency = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^[A-Z]{3}$/)
    .valid(...SUPPORTED_CURRENCIES)
    .messages({
      'string.pattern.base': 'must be a three-letter upper-case currency code',
      'any.only': UNKNOWN_CURRENCY_MESSAGE,
    });

export const blockedPhoneSchema = Joi.object({
  country_code: countryCode().required(),
  phone: phone().required(),
  reason: Joi.string().max(200),
});

const amountBounds = {
  active: bool().default(true),
  min_amount: decimal(),
  max_amount: decimal(),
};

const credential = (): Joi.StringSchema => Joi.string().min(1).max(500);

function gatewayMethod(providers: GatewayProvider[], mode: StoreSchemaMode): Joi.ObjectSchema {
  const needed = (provider: GatewayProvider) => (s: Joi.StringSchema) =>
    mode === 'fixture' ? s.when('provider', { is: provider, then: Joi.required() }) : s;
  const method = Joi.object({
    provider: Joi.string()
      .valid(...providers)
      .required(),
    secret_key: needed('moyasar')(credential()),
    publishable_key: credential(),
    api_key: needed('coinbase')(credential()),
    webhook_secret: credential(),
    ...amountBounds,
  });
  return mode === 'patch' ? method.allow(null) : method;
}

export function paymentMethodsSchema(mode: StoreSchemaMode): Joi.ObjectSchema {
  const nullable = (s: Joi.ObjectSchema) => (mode === 'patch' ? s.allow(null) : s);
  const schema = Joi.object({
    card: gatewayMethod(['sandbox', 'moyasar'], mode),
    mada: gatewayMethod(['sandbox', 'moyasar'], mode),
    stcpay: gatewayMethod(['sandbox', 'moyasar'], mode),
    applepay: gatewayMethod(['sandbox', 'moyasar'], mode),
    coinbase: gatewayMethod(['sandbox', 'coinbase'], mode),
    paypal: nullable(
      Joi.object({
        email: Joi.string().email({ tlds: { allow: false } }),
        pay_link: Joi.string().uri({ scheme: ['https', 'http'] }),
        ...amountBounds,
      }).or('email', 'pay_link'),
    ),
    bank: nullable(
      Joi.object({
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
    ),
  });
  return mode === 'fixture' ? schema.default({}) : schema;
}
