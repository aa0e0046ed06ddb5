import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, day, money, shortText, type EmailTemplate } from './common';

/** A subscription's price changes from a coming renewal on (docs/subscriptions.md): said ahead of time. */
export interface PriceChangeData {
  product_name: string;
  old_amount: string;
  new_amount: string;
  currency: string;
  /** The first renewal charged at the new price (ISO). */
  effective_at: string;
}

const T = {
  en: {
    subject: (name: string) => `The price of your subscription to ${name} is changing`,
    title: 'An upcoming price change',
    body: (name: string, d: string) =>
      `From your renewal on ${d}, your subscription to ${name} is charged at the new price. You may cancel before then.`,
    before: 'Current price',
    after: 'New price',
  },
  ar: {
    subject: (name: string) => `سعر اشتراكك في ${name} سيتغير`,
    title: 'تغيير قادم في السعر',
    body: (name: string, d: string) =>
      `ابتداءً من تجديدك في ${d} يُحتسب اشتراكك في ${name} بالسعر الجديد. يمكنك الإلغاء قبل ذلك.`,
    before: 'السعر الحالي',
    after: 'السعر الجديد',
  },
};

export const priceChange: EmailTemplate<PriceChangeData> = {
  schema: Joi.object<PriceChangeData, true>({
    product_name: shortText(200).required(),
    old_amount: amount().required(),
    new_amount: amount().required(),
    currency: currency().required(),
    effective_at: Joi.string().isoDate().required(),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject(data.product_name),
      title: t.title,
      blocks: [
        { kind: 'paragraph', text: t.body(data.product_name, day(data.effective_at)) },
        {
          kind: 'facts',
          rows: [
            { label: t.before, value: money(data.old_amount, data.currency, locale) },
            { label: t.after, value: money(data.new_amount, data.currency, locale) },
          ],
        },
      ],
    });
  },
};
