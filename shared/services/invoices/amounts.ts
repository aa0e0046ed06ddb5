/**
 * Invoice amounts: integer minor units inside, decimal strings with the currency's own number of decimals
 * (ISO 4217 minor unit) on the document and in the API. The split of a VAT-inclusive price is done once, in
 * integers: VAT = total - round(total / (1 + rate)), rounded half up.
 */

import { currencyExponent } from '../../currency';

/** The platform's one table of ISO 4217 minor units (shared/currency.ts). */
export { currencyExponent };

/** 11500 SAR -> "115.00"; 11500 KWD -> "11.500"; -500 SAR -> "-5.00". Exact for any safe integer. */
export function formatAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount: ${minor}`);
  const exponent = currencyExponent(currency);
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  if (exponent === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/** The VAT inside a VAT-inclusive amount at `rateBp` basis points (1500 = 15%), exact in integers. */
export function inclusiveVat(totalMinor: number, rateBp: number): number {
  if (rateBp <= 0 || totalMinor === 0) return 0;
  const total = BigInt(totalMinor);
  const denominator = BigInt(10_000 + rateBp);
  // round(total * 10000 / (10000 + rate)), half up, for a non-negative total.
  const net = (total * 20_000n + denominator) / (2n * denominator);
  return Number(total - net);
}

/** The Saudi standard rate. */
export const STANDARD_VAT_RATE_BP = 1500;
