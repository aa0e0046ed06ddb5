import type { Locale } from '../../../pay/i18n';

/**
 * The order page's words that are not the order's statuses (those are `statusName` in i18n.ts): the
 * discount line, who moved the order (the history's sources) and which provider took a payment. Both
 * languages, so an Arabic page shows no English status, method or provider word.
 */
export interface OrderLabels {
  subtotal: string;
  discount: string;
  /** `order_status_history.source`: merchant, buyer, provider, system, and the older api/worker/webhook/sweep. */
  source: Record<string, string>;
  /** `payments.provider`. */
  provider: Record<string, string>;
}

export const ORDER_LABELS: Readonly<Record<Locale, OrderLabels>> = {
  en: {
    subtotal: 'Subtotal',
    discount: 'Discount',
    source: {
      merchant: 'by the store',
      dashboard: 'by the store',
      api: 'by the Merchant API',
      buyer: 'by the buyer',
      provider: 'by the payment provider',
      webhook: 'by the payment provider',
      system: 'automatically',
      worker: 'automatically',
      sweep: 'automatically',
      renewal: 'by a renewal',
    },
    provider: {
      sandbox: 'Sandbox',
      moyasar: 'Moyasar',
      paypal: 'PayPal',
      coinbase: 'Coinbase',
      bank: 'Bank transfer',
    },
  },
  ar: {
    subtotal: 'المجموع الفرعي',
    discount: 'الخصم',
    source: {
      merchant: 'من المتجر',
      dashboard: 'من المتجر',
      api: 'عبر واجهة التاجر البرمجية',
      buyer: 'من المشتري',
      provider: 'من مزوّد الدفع',
      webhook: 'من مزوّد الدفع',
      system: 'تلقائياً',
      worker: 'تلقائياً',
      sweep: 'تلقائياً',
      renewal: 'بتجديد',
    },
    provider: {
      sandbox: 'بيئة التجربة',
      moyasar: 'ميسّر',
      paypal: 'باي بال',
      coinbase: 'كوين بيس',
      bank: 'تحويل بنكي',
    },
  },
};

/** A label from `table`, or, for a value no table knows yet, a neutral dash rather than an English word. */
export const labelOf = (table: Record<string, string>, key: string | null | undefined): string =>
  (key && table[key]) || '—';
