import Joi from 'joi';
import { layout } from './layout';
import { amount, currency, link, money, shortText, type EmailTemplate } from './common';

/** The merchant's notice of a new paid order (shared/services/notices): which order, how much, a link. */
export interface OrderNoticeData {
  order_number: number;
  amount: string;
  currency: string;
  buyer: string;
  items: string[];
  url: string;
}

const T = {
  en: {
    subject: (n: number, sum: string) => `New order #${n}: ${sum}`,
    title: (n: number) => `New paid order #${n}`,
    buyer: 'Buyer',
    total: 'Total',
    items: 'Items',
    open: 'Open the order',
  },
  ar: {
    subject: (n: number, sum: string) => `طلب جديد رقم ${n}: ${sum}`,
    title: (n: number) => `طلب مدفوع جديد رقم ${n}`,
    buyer: 'المشتري',
    total: 'الإجمالي',
    items: 'المنتجات',
    open: 'افتح الطلب',
  },
};

export const orderNotice: EmailTemplate<OrderNoticeData> = {
  schema: Joi.object<OrderNoticeData, true>({
    order_number: Joi.number().integer().min(1).required(),
    amount: amount().required(),
    currency: currency().required(),
    buyer: shortText(400).required(),
    items: Joi.array().items(shortText(300)).min(1).max(200).required(),
    url: link().required(),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    const sum = money(data.amount, data.currency, locale);
    return layout(locale, brand, {
      subject: t.subject(data.order_number, sum),
      title: t.title(data.order_number),
      blocks: [
        {
          kind: 'facts',
          rows: [
            { label: t.buyer, value: data.buyer },
            { label: t.total, value: sum },
          ],
        },
        { kind: 'values', title: t.items, values: data.items },
        { kind: 'button', label: t.open, url: data.url },
      ],
    });
  },
};
