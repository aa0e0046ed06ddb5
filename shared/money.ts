import { currencyExponent, MAX_EXPONENT } from './currency';

/**
 * Money is integer minor units inside the platform and a decimal string at the edges ("40.00"). A minor
 * unit is the currency's own (ISO 4217, `shared/currency.ts`): a halala for SAR (2 decimals), a fils for
 * KWD (3), a yen for JPY (0). Every function takes the amount's currency; without one it reads 2
 * decimals, which is what percentages and rates (basis points) use.
 */
const DECIMAL = /^(\d{1,12})(?:\.(\d{1,6}))?$/;

/**
 * "15.5" SAR -> 1550, "1.250" KWD -> 1250, "500" JPY -> 500. Null for anything that is not a
 * non-negative decimal with at most the currency's decimals (trailing zeros past them are exact and
 * accepted: "500.00" JPY is 500).
 */
export function parseMoney(value: string | number, currency?: string | null): number | null {
  return parseDecimal(value, currencyExponent(currency));
}

/**
 * What a Merchant API or fixture field says when an amount has more decimals than its store's currency
 * allows (ISO 4217): refused, never rounded or scaled, so "10.5" on a JPY store is not ¥10 or ¥1050.
 */
export function precisionMessage(currency: string): string {
  return `must have at most ${currencyExponent(currency)} decimals in ${currency}`;
}

/** A decimal with at most `exponent` significant decimals, in units of 10^-exponent; null otherwise. */
export function parseDecimal(value: string | number, exponent: number): number | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const decimals = match[2] ?? '';
  if (/[1-9]/.test(decimals.slice(exponent))) return null;
  const fraction = decimals.slice(0, exponent).padEnd(exponent, '0');
  return Number(match[1]) * 10 ** exponent + Number(fraction || '0');
}

/** True when `value` has no more decimals than any supported currency allows (the check before the currency is known). */
export function isMoneyText(value: string | number): boolean {
  return parseDecimal(value, MAX_EXPONENT) !== null;
}

/** 1550 SAR -> "15.50"; 1250 KWD -> "1.250"; 500 JPY -> "500". */
export function formatMoney(minor: number, currency?: string | null): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount: ${minor}`);
  const exponent = currencyExponent(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (exponent === 0) return `${sign}${abs}`;
  const unit = 10 ** exponent;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(exponent, '0')}`;
}

/** 1550 SAR -> 15.5, for the fields the spec types as numbers (price.original, amount). */
export function toMajorNumber(minor: number, currency?: string | null): number {
  return Number(formatMoney(minor, currency));
}

/** "1550.00 SAR"-style display string used in price.formatted, with the currency's own decimals. */
export function formatDisplay(minor: number, currency: string): string {
  return `${formatMoney(minor, currency)} ${currency}`;
}

/** Rounds a rational amount of minor units half away from zero (used for percentages and tax). */
export function roundMinor(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** `amount` * basisPoints / 10000, rounded half up, exact in integers. */
export function applyBasisPoints(amountMinor: number, basisPoints: number): number {
  return Math.floor((amountMinor * basisPoints + 5_000) / 10_000);
}
