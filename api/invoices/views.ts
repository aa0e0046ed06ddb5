import QRCode from 'qrcode';
import type { DocumentPage } from '../../shared/services/invoices/read';
import type { InvoiceLine } from '../../shared/services/invoices/issue';
import { formatAmount, inclusiveVat } from '../../shared/services/invoices/amounts';
import { escapeHtml, HtmlAnswer } from '../pay/html';
import { PAYMENT_METHOD_NAMES } from '../../shared/services/payment-methods';

/**
 * The buyer's invoice page: Arabic and English side by side, as Saudi invoices are printed (every label in
 * both languages, English on the left and Arabic on the right), the ZATCA QR code as an inline SVG image,
 * the lines, and the VAT split. The same page shows a credit note, or a plain receipt for a store without
 * a VAT number (no QR, no VAT line). Amounts are the issued decimal strings, never recomputed in floating
 * point. No script; printable (the print style drops the page's chrome).
 */

interface Label {
  en: string;
  ar: string;
}

const L = {
  invoice: { en: 'Simplified Tax Invoice', ar: 'فاتورة ضريبية مبسطة' },
  creditNote: { en: 'Credit Note', ar: 'إشعار دائن' },
  receipt: { en: 'Receipt', ar: 'إيصال' },
  number: { en: 'Invoice number', ar: 'رقم الفاتورة' },
  noteNumber: { en: 'Credit note number', ar: 'رقم الإشعار' },
  forInvoice: { en: 'For invoice', ar: 'عن الفاتورة' },
  issued: { en: 'Issue date', ar: 'تاريخ الإصدار' },
  paid: { en: 'Paid on', ar: 'تاريخ الدفع' },
  order: { en: 'Order', ar: 'الطلب' },
  status: { en: 'Status', ar: 'الحالة' },
  method: { en: 'Payment method', ar: 'طريقة الدفع' },
  buyer: { en: 'Buyer', ar: 'المشتري' },
  seller: { en: 'Seller', ar: 'البائع' },
  vatNumber: { en: 'VAT registration number', ar: 'الرقم الضريبي' },
  address: { en: 'Address', ar: 'العنوان' },
  reason: { en: 'Reason', ar: 'السبب' },
  item: { en: 'Item', ar: 'الصنف' },
  qty: { en: 'Qty', ar: 'الكمية' },
  unit: { en: 'Unit price (incl. VAT)', ar: 'سعر الوحدة (شامل الضريبة)' },
  unitPlain: { en: 'Unit price', ar: 'سعر الوحدة' },
  lineVat: { en: 'VAT', ar: 'الضريبة' },
  lineTotal: { en: 'Total', ar: 'المجموع' },
  subtotal: { en: 'Subtotal', ar: 'المجموع الفرعي' },
  discount: { en: 'Discount', ar: 'الخصم' },
  net: { en: 'Total excluding VAT', ar: 'الإجمالي غير شامل الضريبة' },
  vat: { en: 'VAT', ar: 'ضريبة القيمة المضافة' },
  tax: { en: 'Tax', ar: 'الضريبة' },
  total: { en: 'Total including VAT', ar: 'الإجمالي شامل الضريبة' },
  totalPlain: { en: 'Total', ar: 'الإجمالي' },
  credited: { en: 'Amount credited (incl. VAT)', ar: 'المبلغ المسترد (شامل الضريبة)' },
  creditedVat: { en: 'VAT credited', ar: 'الضريبة المستردة' },
  creditNotes: { en: 'Credit notes', ar: 'الإشعارات الدائنة' },
  backToInvoice: { en: 'Back to the invoice', ar: 'العودة إلى الفاتورة' },
  qr: { en: 'ZATCA QR code', ar: 'رمز الاستجابة السريعة للهيئة' },
  notFound: { en: 'Invoice not found', ar: 'الفاتورة غير موجودة' },
  notFoundText: {
    en: 'This link does not name a paid order. Check that you copied the whole link.',
    ar: 'هذا الرابط لا يشير إلى طلب مدفوع. تأكد من نسخ الرابط كاملاً.',
  },
  pdf: { en: 'Download PDF', ar: 'تنزيل PDF' },
  noVat: { en: 'The seller is not registered for VAT.', ar: 'البائع غير مسجل في ضريبة القيمة المضافة.' },
} satisfies Record<string, Label>;

const both = (l: Label): string =>
  `<span lang="en">${escapeHtml(l.en)}</span><span class="sep"> · </span><span lang="ar" dir="rtl">${escapeHtml(l.ar)}</span>`;

/** One labelled value: English label, the value, Arabic label (a row of the header grid). */
const field = (l: Label, value: string, ltr = true): string =>
  `<tr><th scope="row" lang="en">${escapeHtml(l.en)}</th><td${ltr ? ' dir="ltr"' : ''}><bdi>${escapeHtml(value)}</bdi></td><th scope="row" lang="ar" dir="rtl">${escapeHtml(l.ar)}</th></tr>`;

const money = (amount: string, currency: string): string => `${amount} ${currency}`;

/** A row whose value differs by language: the English value under the English label, the Arabic one beside. */
const fieldPair = (l: Label, en: string, ar: string): string =>
  `<tr><th scope="row" lang="en">${escapeHtml(l.en)}</th><td><span lang="en" dir="ltr"><bdi>${escapeHtml(en)}</bdi></span> · <span lang="ar" dir="rtl"><bdi>${escapeHtml(ar)}</bdi></span></td><th scope="row" lang="ar" dir="rtl">${escapeHtml(l.ar)}</th></tr>`;

/** The order statuses as a buyer reads them (ORDER_STATUS's numbers). */
const STATUS: Readonly<Record<number, Label>> = {
  1: { en: 'Awaiting payment', ar: 'بانتظار الدفع' },
  2: { en: 'Under review', ar: 'قيد المراجعة' },
  3: { en: 'In progress', ar: 'قيد التنفيذ' },
  4: { en: 'Completed', ar: 'مكتمل' },
  5: { en: 'Cancelled', ar: 'ملغي' },
  6: { en: 'Refunded', ar: 'مسترد' },
};

/** A moment in the store's time zone, both languages with Western digits (e.g. "27 Nov 2026, 20:40"). */
export function localDate(iso: string, timeZone: string): Label {
  const at = new Date(iso);
  const opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short', timeZone };
  const zone = (locale: string): string => {
    try {
      return new Intl.DateTimeFormat(locale, opts).format(at);
    } catch {
      return new Intl.DateTimeFormat(locale, { ...opts, timeZone: 'Asia/Riyadh' }).format(at);
    }
  };
  return { en: zone('en-GB'), ar: zone('ar-SA-u-nu-latn-ca-gregory') };
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Tahoma,"Noto Sans Arabic","Noto Naskh Arabic","DejaVu Sans",sans-serif;background:#f4f5f7;color:#1f2328;margin:0;line-height:1.45}
main{max-width:52rem;margin:1.5rem auto 3rem;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{display:flex;justify-content:space-between;gap:1rem;font-size:1.4rem;margin:0 0 .25rem}
h1 [lang=ar],th[lang=ar],.ar{font-family:"Noto Naskh Arabic","Noto Sans Arabic","DejaVu Sans",Tahoma,sans-serif}
h2{display:flex;justify-content:space-between;font-size:1rem;margin:1.5rem 0 .5rem}
.store{color:#59636e;margin:0 0 1.25rem}
.top{display:grid;grid-template-columns:1fr auto;gap:1.5rem;align-items:start}
.qr svg{width:9.5rem;height:9.5rem;display:block}
.qr svg.qr-phase2{width:16rem;height:16rem}
.qr figcaption{font-size:.75rem;color:#59636e;text-align:center}
table{border-collapse:collapse;width:100%}
.meta th{font-weight:500;color:#59636e;padding:.25rem .5rem;white-space:nowrap;font-size:.9rem}
.meta th[lang=en]{text-align:left}.meta th[lang=ar]{text-align:right}
.meta td{text-align:center;padding:.25rem .5rem;font-weight:600;word-break:break-word}
.meta td[dir=ltr] bdi{white-space:nowrap}
h2 .sep{visibility:hidden}
.lines th{background:#f4f5f7;font-weight:600;font-size:.8rem;padding:.45rem .5rem;text-align:start}
.lines th span{display:block}.lines th .sep{display:none}
.lines td{border-bottom:1px solid #eaeef2;padding:.5rem}
.lines .num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.totals{margin-top:1rem}
.totals th{font-weight:500;padding:.3rem .5rem;font-size:.9rem}
.totals th[lang=en]{text-align:left}.totals th[lang=ar]{text-align:right}
.totals td{text-align:center;font-variant-numeric:tabular-nums;white-space:nowrap}
.totals tr.grand th,.totals tr.grand td{font-weight:700;border-top:2px solid #1f2328;font-size:1rem}
.sep{color:#8c959f}
.muted{color:#59636e}
.pair{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}
ul.notes{padding:0;list-style:none}ul.notes li{margin:.3rem 0}
a{color:#1f6feb}
@media print{body{background:#fff}main{box-shadow:none;margin:0;max-width:none}}
@media (max-width:36rem){main{padding:1rem}.top{grid-template-columns:1fr}}
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The QR code of `text` as an inline SVG (the qrcode library; error correction M, as ZATCA's samples). */
async function qrSvg(text: string, label: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
  // A phase-2 QR (tags 6-9, docs/einvoicing.md) has about four times the modules: drawn larger to stay readable.
  const wide = text.length > 300 ? ' class="qr-phase2"' : '';
  return svg.replace('<svg ', `<svg${wide} role="img" aria-label="${escapeHtml(label)}" `);
}

function linesTable(lines: readonly InvoiceLine[], currency: string, vatRateBp: number | null): string {
  const head = [
    L.item,
    L.qty,
    vatRateBp === null ? L.unitPlain : L.unit,
    ...(vatRateBp === null ? [] : [L.lineVat]),
    L.lineTotal,
  ]
    .map((l) => `<th scope="col">${both(l)}</th>`)
    .join('');
  const rows = lines
    .map((line) => {
      const vat =
        vatRateBp === null
          ? ''
          : `<td class="num">${escapeHtml(money(formatAmount(inclusiveVat(line.total_minor, vatRateBp), currency), currency))}</td>`;
      // Bilingual (docs/store-pages.md): the product's Arabic name under the English one when it has one.
      const ar = line.name_ar
        ? `<br><bdi lang="ar" dir="rtl" class="ar" data-name-ar>${escapeHtml(line.name_ar)}</bdi>`
        : '';
      return `<tr><td><bdi>${escapeHtml(line.name)}</bdi>${ar}</td><td class="num">${line.quantity}</td><td class="num">${escapeHtml(money(formatAmount(line.unit_price_minor, currency), currency))}</td>${vat}<td class="num">${escapeHtml(money(formatAmount(line.total_minor, currency), currency))}</td></tr>`;
    })
    .join('\n');
  return `<table class="lines"><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

const totalRow = (l: Label, value: string, grand = false): string =>
  `<tr${grand ? ' class="grand"' : ''}><th scope="row" lang="en">${escapeHtml(l.en)}</th><td dir="ltr" data-total="${escapeHtml(l.en)}">${escapeHtml(value)}</td><th scope="row" lang="ar" dir="rtl">${escapeHtml(l.ar)}</th></tr>`;

const title = (l: Label): string =>
  `<h1><span lang="en">${escapeHtml(l.en)}</span><span lang="ar" dir="rtl">${escapeHtml(l.ar)}</span></h1>`;

export async function documentPageView(result: DocumentPage): Promise<HtmlAnswer> {
  switch (result.kind) {
    case 'not_found':
      return {
        status: 404,
        html: page(
          `${L.notFound.en} · ${L.notFound.ar}`,
          `${title(L.notFound)}<p lang="en">${escapeHtml(L.notFoundText.en)}</p><p lang="ar" dir="rtl">${escapeHtml(L.notFoundText.ar)}</p>`,
        ),
      };
    case 'receipt': {
      const c = result.currency;
      const paid = localDate(result.paidAt, result.timeZone);
      const status = STATUS[result.status] ?? { en: String(result.status), ar: String(result.status) };
      const method = result.method ? PAYMENT_METHOD_NAMES[result.method] : null;
      const body = `${title(L.receipt)}
<p class="store"><bdi>${escapeHtml(result.storeName)}</bdi></p>
<table class="meta">${field(L.order, `#${result.orderNumber}`)}${fieldPair(L.paid, paid.en, paid.ar)}${fieldPair(L.status, status.en, status.ar)}${method ? fieldPair(L.method, method.name_en, method.name_ar) : ''}${result.buyerName ? field(L.buyer, result.buyerName, false) : ''}</table>
<h2>${both(L.item)}</h2>
${linesTable(result.lines, c, null)}
<table class="totals">
${result.discount !== formatAmount(0, c) ? totalRow(L.subtotal, money(result.subtotal, c)) + totalRow(L.discount, `-${money(result.discount, c)}`) : ''}
${result.tax !== null ? totalRow(L.tax, money(result.tax, c)) : ''}
${totalRow(L.totalPlain, money(result.total, c), true)}
</table>
<p class="muted pair"><span lang="en">${escapeHtml(L.noVat.en)}</span><span lang="ar" dir="rtl">${escapeHtml(L.noVat.ar)}</span></p>
<p class="pair"><a href="${escapeHtml(`${result.url}/pdf`)}" download>${both(L.pdf)}</a></p>`;
      return {
        status: 200,
        html: page(`${L.receipt.en} #${result.orderNumber} · ${result.storeName}`, body),
      };
    }
    case 'invoice': {
      const inv = result.invoice;
      const c = inv.currency;
      const note = result.creditNote;
      const seller = [
        field(L.seller, inv.seller_name, false),
        field(L.vatNumber, inv.vat_number),
        ...(inv.seller_address ? [field(L.address, inv.seller_address, false)] : []),
      ].join('');
      if (note) {
        const body = `${title(L.creditNote)}
<p class="store"><bdi>${escapeHtml(result.storeName)}</bdi></p>
<div class="top"><table class="meta">
${field(L.noteNumber, String(note.number))}${field(L.issued, note.issued_at)}${field(L.forInvoice, `${inv.number} (${inv.issued_at})`)}${field(L.order, `#${result.orderNumber}`)}
${seller}${field(L.reason, note.reason, false)}
</table>
<figure class="qr">${await qrSvg(note.qr, L.qr.en)}<figcaption>${both(L.qr)}</figcaption></figure></div>
<table class="totals">
${totalRow(L.net, money(note.total_excl_vat, c))}
${totalRow(L.creditedVat, money(note.vat, c))}
${totalRow(L.credited, money(note.total, c), true)}
</table>
<p class="pair"><a href="${escapeHtml(inv.url)}">${both(L.backToInvoice)}</a><a href="${escapeHtml(`${note.url}/pdf`)}" download>${both(L.pdf)}</a></p>`;
        return { status: 200, html: page(`${L.creditNote.en} ${note.number} · ${inv.seller_name}`, body) };
      }
      const rateBp = Math.round(Number(inv.vat_rate) * 100);
      const notes = inv.credit_notes.length
        ? `<h2>${both(L.creditNotes)}</h2><ul class="notes">${inv.credit_notes
            .map(
              (n) =>
                `<li><a href="${escapeHtml(n.url)}">${escapeHtml(`${L.creditNote.en} ${n.number}`)} · <span lang="ar" dir="rtl">${escapeHtml(`${L.creditNote.ar} ${n.number}`)}</span></a> <span dir="ltr">${escapeHtml(`${n.issued_at} · ${money(n.total, c)}`)}</span></li>`,
            )
            .join('')}</ul>`
        : '';
      const discounted = inv.discount !== formatAmount(0, c);
      const body = `${title(L.invoice)}
<p class="store"><bdi>${escapeHtml(result.storeName)}</bdi></p>
<div class="top"><table class="meta">
${field(L.number, String(inv.number))}${field(L.issued, inv.issued_at)}${field(L.order, `#${result.orderNumber}`)}
${seller}
</table>
<figure class="qr">${await qrSvg(inv.qr, L.qr.en)}<figcaption>${both(L.qr)}</figcaption></figure></div>
<h2>${both(L.item)}</h2>
${linesTable(result.lines, c, rateBp)}
<table class="totals">
${discounted ? totalRow(L.subtotal, money(inv.subtotal, c)) + totalRow(L.discount, `-${money(inv.discount, c)}`) : ''}
${totalRow(L.net, money(inv.total_excl_vat, c))}
${totalRow({ en: `${L.vat.en} ${inv.vat_rate}%`, ar: `${L.vat.ar} ${inv.vat_rate}%` }, money(inv.vat, c))}
${totalRow(L.total, money(inv.total, c), true)}
</table>
${notes}
<p class="pair"><a href="${escapeHtml(`${inv.url}/pdf`)}" download>${both(L.pdf)}</a></p>`;
      return { status: 200, html: page(`${L.invoice.en} ${inv.number} · ${inv.seller_name}`, body) };
    }
  }
}
