import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, money, shortText, type EmailTemplate } from './common';

/** A refund that the provider confirmed: how much went back, for which order. */
export interface RefundData {
  order_id: number;
  /** The store's own order number (`orders.number`), shown to the buyer; the id when absent (older rows). */
  order_number?: number | null;
  amount: string;
  currency: string;
  reason?: string | null;
}

const T = {
  en: {
    subject: (id: number) => `Refund for order #${id}`,
    title: 'Your refund is on its way',
    body: (sum: string, id: number) =>
      `We refunded ${sum} for order #${id}. It reaches your account within a few working days, depending on your bank.`,
    reason: 'Reason',
  },
  ar: {
    subject: (id: number) => `استرداد مبلغ الطلب رقم ${id}`,
    title: 'تم استرداد مبلغك',
    body: (sum: string, id: number) =>
      `أعدنا ${sum} عن الطلب رقم ${id}. يصل المبلغ إلى حسابك خلال أيام عمل قليلة حسب بنكك.`,
    reason: 'السبب',
  },
};

export const refund: EmailTemplate<RefundData> = {
  schema: Joi.object<RefundData, true>({
    order_id: Joi.number().integer().min(1).required(),
    order_number: Joi.number().integer().min(1).allow(null),
    amount: amount().required(),
    currency: currency().required(),
    reason: shortText(500).allow(null),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject(data.order_number ?? data.order_id),
      title: t.title,
      blocks: [
        {
          kind: 'paragraph',
          text: t.body(money(data.amount, data.currency, locale), data.order_number ?? data.order_id),
        },
        ...(data.reason ? [{ kind: 'facts' as const, rows: [{ label: t.reason, value: data.reason }] }] : []),
      ],
    });
  },
};
