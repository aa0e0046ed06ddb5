/**
 * Money is integer minor units inside the platform and a decimal string at the edges ("40.00").
 * Every currency the platform sells in has two decimals (SAR, USD, EUR, AED, ...).
 */
const DECIMAL = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

/** "15.5" -> 1550. Returns null for anything that is not a non-negative decimal with at most two places. */
export function parseMoney(value: string | number): number | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** 1550 -> "15.50" */
export function formatMoney(minor: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount: ${minor}`);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** 1550 -> 15.5, for the fields the spec types as numbers (price.original, amount). */
export function toMajorNumber(minor: number): number {
  return Number(formatMoney(minor));
}

/** "1550.00 SAR"-style display string used in price.formatted. */
export function formatDisplay(minor: number, currency: string): string {
  return `${formatMoney(minor)} ${currency}`;
}

/** Rounds a rational amount of minor units half away from zero (used for percentages and tax). */
export function roundMinor(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** `amount` * basisPoints / 10000, rounded half up, exact in integers. */
export function applyBasisPoints(amountMinor: number, basisPoints: number): number {
  return Math.floor((amountMinor * basisPoints + 5_000) / 10_000);
}
