/**
 * The one table of the currencies the platform sells in, with their ISO 4217 minor-unit exponent: how
 * many decimals the currency has, and so what one integer "minor unit" of an amount is (a halala, a fils,
 * a yen). Every amount inside the platform is an integer of these units; `shared/money.ts` turns them
 * into decimal strings and back with the exponent of the amount's own currency, and payment providers
 * that take minor units (Moyasar) get them as they are. A currency not in this table is refused where a
 * store's currency is set (fixture, Merchant API), so no amount is ever read with a guessed exponent.
 */
export const CURRENCY_EXPONENTS = Object.freeze({
  // Gulf and Middle East
  SAR: 2,
  AED: 2,
  QAR: 2,
  KWD: 3,
  BHD: 3,
  OMR: 3,
  JOD: 3,
  IQD: 3,
  LYD: 3,
  TND: 3,
  EGP: 2,
  MAD: 2,
  DZD: 2,
  LBP: 2,
  TRY: 2,
  ILS: 2,
  PKR: 2,
  INR: 2,
  // The rest of the world's most traded
  USD: 2,
  EUR: 2,
  GBP: 2,
  CHF: 2,
  CAD: 2,
  AUD: 2,
  NZD: 2,
  SEK: 2,
  NOK: 2,
  DKK: 2,
  PLN: 2,
  CZK: 2,
  HUF: 2,
  RON: 2,
  CNY: 2,
  HKD: 2,
  SGD: 2,
  MYR: 2,
  IDR: 2,
  THB: 2,
  PHP: 2,
  BRL: 2,
  MXN: 2,
  ZAR: 2,
  NGN: 2,
  JPY: 0,
  KRW: 0,
  VND: 0,
  CLP: 0,
  ISK: 0,
  UGX: 0,
}) satisfies Readonly<Record<string, number>>;

export type CurrencyCode = keyof typeof CURRENCY_EXPONENTS;

/** The most decimals any supported currency has: what an amount's text may carry before its currency is known. */
export const MAX_EXPONENT = 3;

export const SUPPORTED_CURRENCIES: readonly CurrencyCode[] = Object.freeze(
  Object.keys(CURRENCY_EXPONENTS) as CurrencyCode[],
);

export function isSupportedCurrency(code: unknown): code is CurrencyCode {
  return typeof code === 'string' && Object.hasOwn(CURRENCY_EXPONENTS, code);
}

/**
 * Decimals of `currency` (ISO 4217). No currency given, or one the table does not know (a store written
 * before the table refused such codes): 2, the platform's old assumption, so such a store keeps working
 * as it did. New stores cannot be given an unknown currency.
 */
export function currencyExponent(currency?: string | null): number {
  const upper = currency?.toUpperCase();
  return isSupportedCurrency(upper) ? CURRENCY_EXPONENTS[upper] : 2;
}

export const UNKNOWN_CURRENCY_MESSAGE = `must be a currency the platform supports (ISO 4217 code, one of ${SUPPORTED_CURRENCIES.join(', ')})`;
