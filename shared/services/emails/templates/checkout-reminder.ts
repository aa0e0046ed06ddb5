import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, link, money, shortText, type EmailTemplate } from './common';

/** An unpaid checkout's one reminder (docs/growth.md, "Abandoned checkouts"): resume it, or opt out. */
export interface CheckoutReminderData {
  items: string[];
  total: string;
  currency: string;
  resume_url: string;
  opt_out_url: string;
  coupon_code?: string | null;
}

const T = {
  en: {
    subject: 'You left something in your basket',
    title: 'Your order is waiting for you',
    body: (sum: string) =>
      `You did not finish paying ${sum}. Your order is kept for you: continue where you left off.`,
    items: 'In your order',
    coupon: (code: string) => `Use the code ${code} for a discount when you complete it.`,
    button: 'Complete my order',
    optOut: 'Do not remind me again',
  },
  ar: {
    subject: 'تركت شيئاً في سلتك',
    title: 'طلبك بانتظارك',
    body: (sum: string) => `لم تُكمل دفع ${sum}. احتفظنا لك بطلبك: تابع من حيث توقفت.`,
    items: 'في طلبك',
    coupon: (code: string) => `استخدم الرمز ${code} للحصول على خصم عند إتمام الطلب.`,
    button: 'أكمل طلبي',
    optOut: 'لا تذكّرني مرة أخرى',
  },
};

export const checkoutReminder: EmailTemplate<CheckoutReminderData> = {
  schema: Joi.object<CheckoutReminderData, true>({
    items: Joi.array().items(shortText(300)).min(1).max(50).required(),
    total: amount().required(),
    currency: currency().required(),
    resume_url: link().required(),
    opt_out_url: link().required(),
    coupon_code: shortText(100).allow(null),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject,
      title: t.title,
      blocks: [
        { kind: 'paragraph', text: t.body(money(data.total, data.currency, locale)) },
        { kind: 'values', title: t.items, values: data.items },
        ...(data.coupon_code ? [{ kind: 'paragraph' as const, text: t.coupon(data.coupon_code) }] : []),
        { kind: 'button', label: t.button, url: data.resume_url },
        { kind: 'links', title: '', links: [{ label: t.optOut, url: data.opt_out_url }] },
      ],
    });
  },
};
