import Joi from 'joi';
import { layout, type Block } from './layout';
import { shortText, type EmailTemplate } from './common';

/** The merchant's answer to a key replacement claim (docs/fraud.md): the new key, or the note. */
export interface KeyClaimData {
  order_id: number;
  /** The store's own order number (`orders.number`), shown to the buyer; the id when absent (older rows). */
  order_number?: number | null;
  code: string;
  approved: boolean;
  replacement_code?: string | null;
  note?: string | null;
}

const T = {
  en: {
    subject: (id: number) => `Your key claim for order #${id}`,
    approved: 'Your key was replaced',
    declined: 'Your key claim was declined',
    body: (code: string, id: number, approved: boolean) =>
      approved
        ? `The key ${code} of order #${id} was replaced. Here is your new key.`
        : `The store declined the claim on the key ${code} of order #${id}.`,
    newKey: 'Your new key',
    note: 'Note from the store',
  },
  ar: {
    subject: (id: number) => `طلب استبدال مفتاح في الطلب رقم ${id}`,
    approved: 'تم استبدال مفتاحك',
    declined: 'تم رفض طلب الاستبدال',
    body: (code: string, id: number, approved: boolean) =>
      approved
        ? `تم استبدال المفتاح ${code} في الطلب رقم ${id}. هذا مفتاحك الجديد.`
        : `رفض المتجر طلب استبدال المفتاح ${code} في الطلب رقم ${id}.`,
    newKey: 'مفتاحك الجديد',
    note: 'ملاحظة من المتجر',
  },
};

export const keyClaim: EmailTemplate<KeyClaimData> = {
  schema: Joi.object<KeyClaimData, true>({
    order_id: Joi.number().integer().min(1).required(),
    order_number: Joi.number().integer().min(1).allow(null),
    code: shortText(1000).required(),
    approved: Joi.boolean().required(),
    replacement_code: shortText(1000).allow(null),
    note: shortText(1000).allow(null),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    const blocks: Block[] = [
      { kind: 'paragraph', text: t.body(data.code, data.order_number ?? data.order_id, data.approved) },
    ];
    if (data.approved && data.replacement_code) {
      blocks.push({ kind: 'values', title: t.newKey, values: [data.replacement_code] });
    }
    if (data.note) blocks.push({ kind: 'facts', rows: [{ label: t.note, value: data.note }] });
    return layout(locale, brand, {
      subject: t.subject(data.order_number ?? data.order_id),
      title: data.approved ? t.approved : t.declined,
      blocks,
    });
  },
};
