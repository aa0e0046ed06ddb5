import fs from 'node:fs';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { formatAmount, inclusiveVat } from './amounts';
import type { InvoiceLine } from './issue';
import type { DocumentPage } from './read';
import { visualRuns } from './bidi';

/**
 * The invoice (or receipt, or credit note) as a PDF: the same content as the buyer's page, English on the
 * left and Arabic on the right of every row, with the QR. The font is Amiri (assets/fonts, SIL Open Font
 * License), embedded in the file: a Naskh face with Latin letters and digits, so one font serves both
 * languages. pdfkit (fontkit) shapes the Arabic; bidi.ts puts mixed lines in right-to-left order.
 */

/** The project's root (the folder with package.json), from the sources or from dist/. */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

const FONTS = path.join(projectRoot(), 'assets', 'fonts');
const REGULAR = path.join(FONTS, 'Amiri-Regular.ttf');
const BOLD = path.join(FONTS, 'Amiri-Bold.ttf');

/** The font files, read from disk on the first PDF and kept (1.1 MB, the same for every document). */
let fontFiles: { regular: Buffer; bold: Buffer } | null = null;
function fonts(): { regular: Buffer; bold: Buffer } {
  fontFiles ??= { regular: fs.readFileSync(REGULAR), bold: fs.readFileSync(BOLD) };
  return fontFiles;
}

const PAGE = { width: 595.28, margin: 40 };
const RIGHT = PAGE.width - PAGE.margin;
const CONTENT = RIGHT - PAGE.margin;

type Doc = PDFKit.PDFDocument;
type Align = 'left' | 'center' | 'right';

interface Cell {
  text: string;
  x: number;
  width: number;
  align: Align;
  bold?: boolean;
  size?: number;
  color?: string;
}

/**
 * One line of text in a box, without wrapping: the directional runs drawn one after the other in display
 * order; a line too wide for its box is set smaller (down to 6 pt) so nothing spills into the next column.
 */
function cell(doc: Doc, y: number, c: Cell): void {
  doc.font(c.bold ? 'bold' : 'regular').fillColor(c.color ?? '#1f2328');
  let size = c.size ?? 10;
  // A right-to-left run is drawn a word at a time, its words from the last to the first: shaping never
  // crosses a space, and pdfkit lays the spaces of a right-to-left string out of place (it dropped one).
  const pieces = visualRuns(c.text).flatMap((run) =>
    run.direction === 'rtl' ? run.text.split(/( +)/).filter(Boolean).reverse() : [run.text],
  );
  const width = (): number => pieces.reduce((sum, p) => sum + doc.fontSize(size).widthOfString(p), 0);
  while (width() > c.width && size > 6) size -= 0.5;
  const total = width();
  let x =
    c.align === 'left' ? c.x : c.align === 'right' ? c.x + c.width - total : c.x + (c.width - total) / 2;
  for (const piece of pieces) {
    if (piece.trim() !== '') doc.fontSize(size).text(piece, x, y, { lineBreak: false });
    x += doc.fontSize(size).widthOfString(piece);
  }
}

interface Label {
  en: string;
  ar: string;
}

/** A header row: English label left, the value in the middle, Arabic label right. */
function row(doc: Doc, y: number, label: Label, value: string, width = CONTENT): number {
  const third = width / 3;
  cell(doc, y, { text: label.en, x: PAGE.margin, width: third - 6, align: 'left', color: '#59636e' });
  cell(doc, y, { text: value, x: PAGE.margin + third, width: third, align: 'center', bold: true });
  cell(doc, y, {
    text: label.ar,
    x: PAGE.margin + 2 * third + 6,
    width: third - 6,
    align: 'right',
    color: '#59636e',
  });
  return y + 18;
}

function title(doc: Doc, y: number, label: Label, storeName: string): number {
  cell(doc, y, { text: label.en, x: PAGE.margin, width: CONTENT / 2, align: 'left', bold: true, size: 18 });
  cell(doc, y, {
    text: label.ar,
    x: PAGE.margin + CONTENT / 2,
    width: CONTENT / 2,
    align: 'right',
    bold: true,
    size: 18,
  });
  cell(doc, y + 26, { text: storeName, x: PAGE.margin, width: CONTENT, align: 'left', color: '#59636e' });
  return y + 50;
}

const money = (minor: number, currency: string): string => `${formatAmount(minor, currency)} ${currency}`;

function linesTable(
  doc: Doc,
  y: number,
  lines: readonly InvoiceLine[],
  currency: string,
  rateBp: number | null,
): number {
  const cols = rateBp === null ? [0.4, 0.1, 0.25, 0.25] : [0.34, 0.08, 0.2, 0.18, 0.2];
  const heads: Label[] = [
    { en: 'Item', ar: 'الصنف' },
    { en: 'Qty', ar: 'الكمية' },
    rateBp === null
      ? { en: 'Unit price', ar: 'سعر الوحدة' }
      : { en: 'Unit price (incl. VAT)', ar: 'سعر الوحدة' },
    ...(rateBp === null ? [] : [{ en: 'VAT', ar: 'الضريبة' }]),
    { en: 'Total', ar: 'المجموع' },
  ];
  const xs = cols.reduce<number[]>(
    (acc, w, i) => [...acc, (acc[i] ?? PAGE.margin) + w * CONTENT],
    [PAGE.margin],
  );
  doc.rect(PAGE.margin, y - 4, CONTENT, 34).fill('#f4f5f7');
  heads.forEach((h, i) => {
    const align: Align = i === 0 ? 'left' : 'right';
    const box = { x: xs[i]! + 4, width: cols[i]! * CONTENT - 8, align, bold: true, size: 8.5 };
    cell(doc, y, { ...box, text: h.en });
    cell(doc, y + 13, { ...box, text: h.ar });
  });
  y += 36;
  for (const line of lines) {
    const values = [
      line.name,
      String(line.quantity),
      money(line.unit_price_minor, currency),
      ...(rateBp === null ? [] : [money(inclusiveVat(line.total_minor, rateBp), currency)]),
      money(line.total_minor, currency),
    ];
    values.forEach((v, i) => {
      cell(doc, y, {
        text: v,
        x: xs[i]! + 4,
        width: cols[i]! * CONTENT - 8,
        align: i === 0 ? 'left' : 'right',
      });
    });
    // Bilingual (docs/store-pages.md): the product's Arabic name on its own line, right-aligned in the column.
    if (line.name_ar) {
      cell(doc, y + 13, { text: line.name_ar, x: xs[0]! + 4, width: cols[0]! * CONTENT - 8, align: 'right' });
      y += 13;
    }
    y += 18;
    doc
      .moveTo(PAGE.margin, y - 3)
      .lineTo(RIGHT, y - 3)
      .lineWidth(0.5)
      .strokeColor('#eaeef2')
      .stroke();
  }
  return y + 8;
}

function totalRow(doc: Doc, y: number, label: Label, value: string, grand = false): number {
  if (grand)
    doc
      .moveTo(PAGE.margin, y - 3)
      .lineTo(RIGHT, y - 3)
      .lineWidth(1.2)
      .strokeColor('#1f2328')
      .stroke();
  const third = CONTENT / 3;
  const size = grand ? 11.5 : 10;
  cell(doc, y, { text: label.en, x: PAGE.margin, width: third, align: 'left', bold: grand, size });
  cell(doc, y, { text: value, x: PAGE.margin + third, width: third, align: 'center', bold: grand, size });
  cell(doc, y, {
    text: label.ar,
    x: PAGE.margin + 2 * third,
    width: third,
    align: 'right',
    bold: grand,
    size,
  });
  return y + 19;
}

async function qrImage(doc: Doc, text: string, x: number, y: number): Promise<void> {
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 1, scale: 6 });
  doc.image(png, x, y, { width: 120, height: 120 });
  cell(doc, y + 124, { text: 'ZATCA QR', x, width: 120, align: 'center', size: 7.5, color: '#59636e' });
}

/** The PDF of a document page (not found has none: the route answers 404 before). */
export async function documentPdf(result: Exclude<DocumentPage, { kind: 'not_found' }>): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE.margin, info: { Title: pdfTitle(result) } });
  doc.registerFont('regular', fonts().regular);
  doc.registerFont('bold', fonts().bold);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  let y = PAGE.margin;
  if (result.kind === 'receipt') {
    const c = result.currency;
    y = title(doc, y, { en: 'Receipt', ar: 'إيصال' }, result.storeName);
    y = row(doc, y, { en: 'Order', ar: 'الطلب' }, `#${result.orderNumber}`);
    y = row(doc, y, { en: 'Paid on', ar: 'تاريخ الدفع' }, result.paidAt);
    y = linesTable(doc, y + 12, result.lines, c, null);
    if (result.tax !== null) y = totalRow(doc, y, { en: 'Tax', ar: 'الضريبة' }, `${result.tax} ${c}`);
    y = totalRow(doc, y + 4, { en: 'Total', ar: 'الإجمالي' }, `${result.total} ${c}`, true);
    cell(doc, y + 12, {
      text: 'The seller is not registered for VAT.',
      x: PAGE.margin,
      width: CONTENT / 2,
      align: 'left',
      color: '#59636e',
    });
    cell(doc, y + 12, {
      text: 'البائع غير مسجل في ضريبة القيمة المضافة.',
      x: PAGE.margin + CONTENT / 2,
      width: CONTENT / 2,
      align: 'right',
      color: '#59636e',
    });
    doc.end();
    return done;
  }

  const inv = result.invoice;
  const c = inv.currency;
  const note = result.creditNote;
  const metaWidth = CONTENT - 140;
  const seller = (yy: number): number => {
    yy = row(doc, yy, { en: 'Seller', ar: 'البائع' }, inv.seller_name, metaWidth);
    yy = row(doc, yy, { en: 'VAT number', ar: 'الرقم الضريبي' }, inv.vat_number, metaWidth);
    if (inv.seller_address)
      yy = row(doc, yy, { en: 'Address', ar: 'العنوان' }, inv.seller_address, metaWidth);
    return yy;
  };
  if (note) {
    y = title(doc, y, { en: 'Credit Note', ar: 'إشعار دائن' }, result.storeName);
    await qrImage(doc, note.qr, RIGHT - 120, y);
    y = row(doc, y, { en: 'Credit note number', ar: 'رقم الإشعار' }, String(note.number), metaWidth);
    y = row(doc, y, { en: 'Issue date', ar: 'تاريخ الإصدار' }, note.issued_at, metaWidth);
    y = row(doc, y, { en: 'For invoice', ar: 'عن الفاتورة' }, `${inv.number} (${inv.issued_at})`, metaWidth);
    y = row(doc, y, { en: 'Order', ar: 'الطلب' }, `#${result.orderNumber}`, metaWidth);
    y = seller(y);
    y = row(doc, y, { en: 'Reason', ar: 'السبب' }, note.reason, metaWidth);
    y = Math.max(y, PAGE.margin + 50 + 140) + 12;
    y = totalRow(
      doc,
      y,
      { en: 'Total excluding VAT', ar: 'الإجمالي غير شامل الضريبة' },
      `${note.total_excl_vat} ${c}`,
    );
    y = totalRow(doc, y, { en: 'VAT credited', ar: 'الضريبة المستردة' }, `${note.vat} ${c}`);
    totalRow(
      doc,
      y + 4,
      { en: 'Amount credited (incl. VAT)', ar: 'المبلغ المسترد شامل الضريبة' },
      `${note.total} ${c}`,
      true,
    );
    doc.end();
    return done;
  }

  y = title(doc, y, { en: 'Simplified Tax Invoice', ar: 'فاتورة ضريبية مبسطة' }, result.storeName);
  await qrImage(doc, inv.qr, RIGHT - 120, y);
  y = row(doc, y, { en: 'Invoice number', ar: 'رقم الفاتورة' }, String(inv.number), metaWidth);
  y = row(doc, y, { en: 'Issue date', ar: 'تاريخ الإصدار' }, inv.issued_at, metaWidth);
  y = row(doc, y, { en: 'Order', ar: 'الطلب' }, `#${result.orderNumber}`, metaWidth);
  y = seller(y);
  y = Math.max(y, PAGE.margin + 50 + 140) + 12;
  const rateBp = Math.round(Number(inv.vat_rate) * 100);
  y = linesTable(doc, y, result.lines, c, rateBp);
  if (inv.discount !== formatAmount(0, c)) {
    y = totalRow(doc, y, { en: 'Subtotal', ar: 'المجموع الفرعي' }, `${inv.subtotal} ${c}`);
    y = totalRow(doc, y, { en: 'Discount', ar: 'الخصم' }, `-${inv.discount} ${c}`);
  }
  y = totalRow(
    doc,
    y,
    { en: 'Total excluding VAT', ar: 'الإجمالي غير شامل الضريبة' },
    `${inv.total_excl_vat} ${c}`,
  );
  y = totalRow(
    doc,
    y,
    { en: `VAT ${inv.vat_rate}%`, ar: `ضريبة القيمة المضافة ${inv.vat_rate}%` },
    `${inv.vat} ${c}`,
  );
  totalRow(doc, y + 4, { en: 'Total including VAT', ar: 'الإجمالي شامل الضريبة' }, `${inv.total} ${c}`, true);
  doc.end();
  return done;
}

function pdfTitle(result: Exclude<DocumentPage, { kind: 'not_found' }>): string {
  if (result.kind === 'receipt') return `Receipt ${result.orderNumber}`;
  if (result.creditNote) return `Credit note ${result.creditNote.number}`;
  return `Tax invoice ${result.invoice.number}`;
}
