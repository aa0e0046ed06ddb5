import type { PlanDuration } from '../../../db/models';

/** A plan's duration key in the verify result: the plan's, or lifetime / custom for a license without one. */
export type DurationKey = PlanDuration | 'custom';
export type LicenseLocale = 'en' | 'ar';

const LABELS: Record<LicenseLocale, Record<DurationKey, string>> = {
  en: {
    monthly: 'Monthly',
    quarterly: 'Quarterly',
    yearly: 'Yearly',
    lifetime: 'Lifetime',
    custom: 'Custom',
  },
  ar: {
    monthly: 'شهري',
    quarterly: 'ربع سنوي',
    yearly: 'سنوي',
    lifetime: 'مدى الحياة',
    custom: 'مخصص',
  },
};

export function durationLabel(duration: DurationKey, locale: LicenseLocale): string {
  return LABELS[locale][duration];
}

/**
 * The label language from an Accept-Language header: the supported language (ar, en) with the highest
 * q-value, the first listed on a tie; English when neither is named.
 */
export function localeFrom(acceptLanguage: string | undefined | null): LicenseLocale {
  if (!acceptLanguage) return 'en';
  let best: { locale: LicenseLocale; q: number } | null = null;
  for (const part of acceptLanguage.slice(0, 500).split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'ar' && primary !== 'en') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { locale: primary, q };
  }
  return best?.locale ?? 'en';
}

/** Day-month-year in UTC, zero-padded: 23-11-2026 (spec, License: start_date and end_date). */
export function dayMonthYear(date: Date): string {
  const dd = String(date.getUTCDate()).padStart(2, '0');
  const mm = String(date.getUTCMonth() + 1).padStart(2, '0');
  return `${dd}-${mm}-${date.getUTCFullYear()}`;
}
