import { STANDARD_VAT_RATE_BP } from '../invoices/amounts';
import { raw } from 'objection';
import { Store } from '../../../db/models';
import { parseMoney } from '../../money';
import { StoreFixture } from './fixture-schema';

// ---------------------------------------------------------------- row comparison

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Deep equality as the database sees it: dates by instant, missing and null alike, jsonb key order ignored. */
export function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => same(a[key], b[key]));
  }
  return (a ?? null) === (b ?? null);
}

/** The columns of `desired` whose value differs from the stored row. */
export function changes<T extends object>(existing: T, desired: Partial<T>): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(desired) as (keyof T)[]) {
    if (!same(existing[key], desired[key])) out[key] = desired[key];
  }
  return out;
}

export const isEmpty = (patch: object): boolean => Object.keys(patch).length === 0;

/** Objection leaves arrays as they are (Postgres arrays); a jsonb array has to be sent as JSON text. */
export const jsonb = (value: unknown) => raw('?::jsonb', [JSON.stringify(value)]);

/** A validated decimal in minor units of `currency` (ISO 4217 decimals); no currency: basis points. */
export const minor = (value: string, currency?: string): number => parseMoney(value, currency) ?? 0;
export const optionalMinor = (value: string | null | undefined, currency: string): number | null =>
  value === null || value === undefined ? null : minor(value, currency);

/** Drops keys whose value is missing, so settings and credentials hold only what the fixture gave. */
export function compact(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * A store with a VAT number sells at VAT-inclusive prices: 15% unless the fixture names another rate, so
 * the spec's amounts stay as the fixture wrote them and each order records its VAT split.
 */
export function taxSetting(f: StoreFixture): Pick<Store, 'tax_mode' | 'tax_rate_bp'> {
  if (f.vat_number === undefined) return { tax_mode: f.tax_mode, tax_rate_bp: minor(f.tax_rate) };
  const rate = minor(f.tax_rate);
  return { tax_mode: 'inclusive', tax_rate_bp: rate > 0 ? rate : STANDARD_VAT_RATE_BP };
}
