/**
 * The QR code of a simplified tax invoice (ZATCA e-invoicing, phase one): a TLV record, base64-encoded.
 * Each field is one byte of tag, one byte of length (of the value's UTF-8 bytes, so at most 255), then the
 * value in UTF-8. Tags, in this order: 1 seller name, 2 VAT registration number, 3 time stamp (ISO 8601),
 * 4 invoice total with VAT, 5 VAT total. A credit note carries the same five with its own amounts.
 */
export interface QrFields {
  sellerName: string;
  vatNumber: string;
  /** ISO 8601, e.g. 2026-11-24T10:15:00Z */
  timestamp: string;
  /** Decimal strings, as the document prints them. */
  total: string;
  vat: string;
}

/** The most bytes one TLV value can hold (its length is one byte). */
export const TLV_MAX_VALUE_BYTES = 255;

export class TlvValueTooLong extends Error {
  constructor(
    readonly tag: number,
    readonly bytes: number,
  ) {
    super(`TLV tag ${tag} is ${bytes} bytes of UTF-8; at most ${TLV_MAX_VALUE_BYTES} fit`);
    this.name = 'TlvValueTooLong';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

export function encodeTlv(fields: readonly (readonly [tag: number, value: string])[]): Buffer {
  const parts: Buffer[] = [];
  for (const [tag, value] of fields) {
    const bytes = Buffer.from(value, 'utf8');
    if (bytes.length > TLV_MAX_VALUE_BYTES) throw new TlvValueTooLong(tag, bytes.length);
    parts.push(Buffer.from([tag, bytes.length]), bytes);
  }
  return Buffer.concat(parts);
}

/** The base64 text the QR code holds. */
export function zatcaQr(f: QrFields): string {
  return encodeTlv([
    [1, f.sellerName],
    [2, f.vatNumber],
    [3, f.timestamp],
    [4, f.total],
    [5, f.vat],
  ]).toString('base64');
}

/** Reads a TLV record back (tag -> value); throws on a record that ends inside a field. */
export function decodeTlv(record: Buffer): Map<number, string> {
  const out = new Map<number, string>();
  let at = 0;
  while (at < record.length) {
    if (at + 2 > record.length) throw new RangeError(`TLV record ends inside the header at byte ${at}`);
    const tag = record[at]!;
    const length = record[at + 1]!;
    const end = at + 2 + length;
    if (end > record.length) throw new RangeError(`TLV tag ${tag} runs past the end of the record`);
    out.set(tag, record.subarray(at + 2, end).toString('utf8'));
    at = end;
  }
  return out;
}

/** Whether `text` fits one TLV value. */
export function fitsTlv(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') <= TLV_MAX_VALUE_BYTES;
}

/** `text` cut to at most 255 UTF-8 bytes at a character boundary (never inside a character). */
export function clipToTlv(text: string): string {
  if (fitsTlv(text)) return text;
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch, 'utf8') > TLV_MAX_VALUE_BYTES) break;
    out += ch;
  }
  return out;
}
