import type { EmbedAnswers } from './embed-types';

type Product = EmbedAnswers['GET /api/embed/product/{productId}'];
type Coupon = EmbedAnswers['POST /api/embed/apply-coupon'];
type Lang = 'en' | 'ar';

/**
 * Amounts as the widget can foresee them, in integer minor units of the product's currency (3 digits for
 * KWD, BHD, OMR; 0 for JPY). The checkout answer has the final word (tax included). No DOM here: tested in
 * test/unit/widget/pricing.test.ts.
 */

type Method = Product['payment_methods'][number];

/** The minor-unit digits of a currency (ISO 4217), as the browser's Intl knows them; 2 when unknown. */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    return 2;
  }
}

/** A decimal amount ("55.00", 55, "5.125") in minor units. */
export const toMinor = (value: string | number, digits = 2): number =>
  Math.round(Number(value) * 10 ** digits);

/**
 * The store's digits for Arabic text (the product answer's `digits`): Western 0-9 unless it chose
 * Arabic-Indic. English always uses 0-9. `ar` alone would give Arabic-Indic digits in some browsers, so
 * the numbering system is named outright.
 */
export type Numerals = 'western' | 'arabic_indic';

export function numberTag(lang: Lang, numerals: Numerals = 'western', calendar = false): string {
  if (lang !== 'ar') return calendar ? 'en-GB' : 'en';
  return `ar-SA-u-${calendar ? 'ca-gregory-' : ''}nu-${numerals === 'arabic_indic' ? 'arab' : 'latn'}`;
}

/** Text the server wrote with 0-9 ("99.00 SAR"), in the store's digits when the page is Arabic. */
export function localDigits(text: string, lang: Lang, numerals: Numerals = 'western'): string {
  if (lang !== 'ar' || numerals !== 'arabic_indic') return text;
  return text.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
}

export function formatMoney(
  minor: number,
  currency: string,
  lang: Lang,
  digits = 2,
  numerals: Numerals = 'western',
): string {
  const major = minor / 10 ** digits;
  try {
    return new Intl.NumberFormat(numberTag(lang, numerals), { style: 'currency', currency }).format(major);
  } catch {
    return localDigits(`${major.toFixed(digits)} ${currency}`, lang, numerals);
  }
}

/** The quantity typed, or 1 when it is not a whole number of at least 1. */
export function quantityOf(raw: string): number {
  const n = parseInt(raw, 10);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

/** The most one order may hold: the store's max_per_order (10 when unset) and the stock. */
export const maxQuantity = (p: Pick<Product, 'max_per_order' | 'stock'>): number =>
  Math.min(p.max_per_order ?? 10, p.stock.quantity ?? Number.MAX_SAFE_INTEGER);

export interface Choice {
  /** The subscription plan chosen, if any. */
  planId: number | null;
  /** Select fields' chosen option index, by field index. */
  options: Record<number, number>;
  quantity: number;
  coupon: Pick<Coupon, 'type' | 'amount'> | null;
}

export interface Estimate {
  subtotal: number;
  discount: number;
  total: number;
}

export function estimate(
  p: Pick<Product, 'price' | 'subscription_plans' | 'fields'>,
  choice: Choice,
  digits = 2,
): Estimate {
  const plan = p.subscription_plans.find((pl) => pl.id === choice.planId);
  let unit = toMinor(plan ? plan.price : p.price.actual, digits);
  for (const field of p.fields) {
    const option = choice.options[field.index];
    if (field.type === 'select' && option !== undefined) {
      unit += toMinor(field.options.find((o) => o.index === option)?.price ?? 0, digits);
    }
  }
  const subtotal = unit * choice.quantity;
  const c = choice.coupon;
  let discount = 0;
  if (c)
    discount = c.type === 'percentage' ? Math.round((subtotal * c.amount) / 100) : toMinor(c.amount, digits);
  discount = Math.min(Math.max(discount, 0), subtotal);
  return { subtotal, discount, total: subtotal - discount };
}

/** The methods a total can be paid by: within each method's bounds and the coupon's restrictions. */
export function offeredMethods(
  methods: readonly Method[],
  total: number,
  restrictions: readonly string[] = [],
  digits = 2,
): Method[] {
  if (total === 0) return [];
  return methods.filter(
    (m) =>
      (restrictions.length === 0 || restrictions.includes(m.id)) &&
      (m.min_amount == null || total >= toMinor(m.min_amount, digits)) &&
      (m.max_amount == null || total <= toMinor(m.max_amount, digits)),
  );
}
