import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, day, money, shortText, type EmailTemplate } from './common';

/** A subscription renewed: the new period was charged. */
export interface SubscriptionRenewedData {
  product_name: string;
  order_id: number;
  /** The store's own order number (`orders.number`), shown to the buyer; the id when absent (older rows). */
  order_number?: number | null;
  amount: string;
  currency: string;
  /** The end of the new period (ISO), when the next renewal falls. */
  next_renewal_at: string;
}

const T = {
  en: {
    subject: (name: string) => `Your subscription to ${name} is renewed`,
    title: 'Subscription renewed',
    body: (name: string, sum: string) => `We charged ${sum} and renewed your subscription to ${name}.`,
    order: 'Order',
    next: 'Next renewal',
  },
  ar: {
    subject: (name: string) => `تم تجديد اشتراكك في ${name}`,
    title: 'تم تجديد الاشتراك',
    body: (name: string, sum: string) => `خصمنا ${sum} وجددنا اشتراكك في ${name}.`,
    order: 'الطلب',
    next: 'التجديد القادم',
  },
};

export const subscriptionRenewed: EmailTemplate<SubscriptionRenewedData> = {
  schema: Joi.object<SubscriptionRenewedData, true>({
    product_name: shortText(200).required(),
    order_id: Joi.number().integer().min(1).required(),
    order_number: Joi.number().integer().min(1).allow(null),
    amount: amount().required(),
    currency: currency().required(),
    next_renewal_at: Joi.string().isoDate().required(),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject(data.product_name),
      title: t.title,
      blocks: [
        { kind: 'paragraph', text: t.body(data.product_name, money(data.amount, data.currency, locale)) },
        {
          kind: 'facts',
          rows: [
            { label: t.order, value: `#${data.order_number ?? data.order_id}` },
            { label: t.next, value: day(data.next_renewal_at) },
          ],
        },
      ],
    });
  },
};
