import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, day, link, money, shortText, type EmailTemplate } from './common';

/** A renewal charge failed (or no card is saved): the buyer pays through the link to keep the subscription. */
export interface RenewalFailedData {
  product_name: string;
  amount: string;
  currency: string;
  pay_url: string;
  /** When the subscription ends unless paid (ISO); absent: not said. */
  ends_at?: string | null;
}

const T = {
  en: {
    subject: (name: string) => `Action needed: renew your subscription to ${name}`,
    title: 'We could not renew your subscription',
    body: (name: string, sum: string) =>
      `The payment of ${sum} for your subscription to ${name} did not go through. Pay with the link below to keep it.`,
    pay: 'Pay and renew',
    ends: (d: string) => `Without payment the subscription ends on ${d}.`,
  },
  ar: {
    subject: (name: string) => `مطلوب إجراء: جدّد اشتراكك في ${name}`,
    title: 'تعذّر تجديد اشتراكك',
    body: (name: string, sum: string) =>
      `لم يتم دفع ${sum} لتجديد اشتراكك في ${name}. ادفع من الرابط أدناه للإبقاء عليه.`,
    pay: 'ادفع وجدّد',
    ends: (d: string) => `إن لم يتم الدفع ينتهي الاشتراك في ${d}.`,
  },
};

export const renewalFailed: EmailTemplate<RenewalFailedData> = {
  schema: Joi.object<RenewalFailedData, true>({
    product_name: shortText(200).required(),
    amount: amount().required(),
    currency: currency().required(),
    pay_url: link().required(),
    ends_at: Joi.string().isoDate().allow(null),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject(data.product_name),
      title: t.title,
      blocks: [
        { kind: 'paragraph', text: t.body(data.product_name, money(data.amount, data.currency, locale)) },
        { kind: 'button', label: t.pay, url: data.pay_url },
        ...(data.ends_at ? [{ kind: 'paragraph' as const, text: t.ends(day(data.ends_at)) }] : []),
      ],
    });
  },
};
