import Joi from 'joi';
import { layout, type Block } from './layout';
import { link, shortText, type EmailTemplate } from './common';

/**
 * An order's delivery: for each item its code keys, license keys and download addresses, and the invoice
 * or receipt page (the invoice PDF is attached for a store with a VAT number: docs/email.md).
 */
export interface DeliveryData {
  order_id: number;
  /** The store's own order number (`orders.number`), shown to the buyer; the id when absent (older rows). */
  order_number?: number | null;
  items: {
    name: string;
    codes?: string[];
    license_keys?: string[];
    downloads?: { name: string; url: string }[];
    /** Per code key, the signed link that reports it as not working (docs/fraud.md). */
    claims?: { code: string; url: string }[];
  }[];
  document?: { kind: 'invoice' | 'receipt'; url: string } | null;
}

const T = {
  en: {
    subject: (store: string, id: number) => `Your order #${id} from ${store}`,
    title: (id: number) => `Order #${id} is ready`,
    intro: 'Thank you for your purchase. Here is what you bought; keep this e-mail.',
    codes: (name: string) => `${name}: your codes`,
    licenses: (name: string) => `${name}: your license keys`,
    downloads: (name: string) => `${name}: downloads`,
    claims: 'A key does not work? Report it',
    invoice: 'Your invoice',
    receipt: 'Your receipt',
    attached: 'The invoice is attached as a PDF.',
  },
  ar: {
    subject: (store: string, id: number) => `طلبك رقم ${id} من ${store}`,
    title: (id: number) => `طلبك رقم ${id} جاهز`,
    intro: 'شكراً لشرائك. هذه مشترياتك، احتفظ بهذا البريد.',
    codes: (name: string) => `${name}: الأكواد`,
    licenses: (name: string) => `${name}: مفاتيح الترخيص`,
    downloads: (name: string) => `${name}: التنزيلات`,
    claims: 'مفتاح لا يعمل؟ أبلغ عنه',
    invoice: 'فاتورتك',
    receipt: 'إيصالك',
    attached: 'الفاتورة مرفقة بصيغة PDF.',
  },
};

export const delivery: EmailTemplate<DeliveryData> = {
  schema: Joi.object<DeliveryData, true>({
    order_id: Joi.number().integer().min(1).required(),
    order_number: Joi.number().integer().min(1).allow(null),
    items: Joi.array()
      .items(
        Joi.object({
          name: shortText(200).required(),
          codes: Joi.array().items(shortText(1000)).max(1000),
          license_keys: Joi.array().items(shortText(1000)).max(1000),
          downloads: Joi.array()
            .items(Joi.object({ name: shortText(300).required(), url: link().required() }))
            .max(100),
          claims: Joi.array()
            .items(Joi.object({ code: shortText(1000).required(), url: link().required() }))
            .max(1000),
        }),
      )
      .min(1)
      .max(200)
      .required(),
    document: Joi.object({
      kind: Joi.string().valid('invoice', 'receipt').required(),
      url: link().required(),
    }).allow(null),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    const blocks: Block[] = [{ kind: 'paragraph', text: t.intro }];
    for (const item of data.items) {
      if (item.codes?.length) blocks.push({ kind: 'values', title: t.codes(item.name), values: item.codes });
      if (item.license_keys?.length)
        blocks.push({ kind: 'values', title: t.licenses(item.name), values: item.license_keys });
      if (item.downloads?.length)
        blocks.push({
          kind: 'links',
          title: t.downloads(item.name),
          links: item.downloads.map((d) => ({ label: d.name, url: d.url })),
        });
      if (item.claims?.length)
        blocks.push({
          kind: 'links',
          title: t.claims,
          links: item.claims.map((c) => ({ label: c.code, url: c.url })),
        });
    }
    if (data.document) {
      const label = data.document.kind === 'invoice' ? t.invoice : t.receipt;
      blocks.push({ kind: 'button', label, url: data.document.url });
      if (data.document.kind === 'invoice') blocks.push({ kind: 'paragraph', text: t.attached });
    }
    return layout(locale, brand, {
      subject: t.subject(brand.name, data.order_number ?? data.order_id),
      title: t.title(data.order_number ?? data.order_id),
      blocks,
    });
  },
};
