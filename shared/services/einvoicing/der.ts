/**
 * The little of ASN.1 DER the e-invoicing needs, written out: the CSR ZATCA asks for (PKCS #10 with its
 * extensions) and a self-issued test certificate (X.509 v3) are built from these, and a certificate's
 * signature is read back (the QR's tag 9). Node's crypto signs and verifies; it does not build either.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  if (n <= 0xff) return Buffer.from([0x81, n]);
  if (n <= 0xffff) return Buffer.from([0x82, n >> 8, n & 0xff]);
  throw new RangeError(`DER value of ${n} bytes is longer than this encoder writes`);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const seq = (...parts: Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts));
export const set = (...parts: Buffer[]): Buffer => tlv(0x31, Buffer.concat(parts));
export const octets = (b: Buffer): Buffer => tlv(0x04, b);
export const bits = (b: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), b]));
export const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const printable = (s: string): Buffer => tlv(0x13, Buffer.from(s, 'ascii'));
/** A context-specific, constructed tag ([n] EXPLICIT, or [n] IMPLICIT of a constructed type). */
export const ctx = (n: number, content: Buffer): Buffer => tlv(0xa0 + n, content);

/** A non-negative INTEGER from its big-endian bytes (a leading zero added when the top bit is set). */
export function integer(value: Buffer | number): Buffer {
  let b = value as Buffer;
  if (typeof value === 'number') {
    const hex = value.toString(16);
    b = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  }
  while (b.length > 1 && b[0] === 0 && (b[1]! & 0x80) === 0) b = b.subarray(1);
  if ((b[0]! & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const groups: number[] = [];
    let v = arc;
    do {
      groups.unshift(v & 0x7f);
      v = Math.floor(v / 128);
    } while (v > 0);
    for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime (YYMMDDHHMMSSZ) for years before 2050, GeneralizedTime after, as RFC 5280 asks. */
export function time(at: Date): Buffer {
  const iso = at.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return at.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(iso.slice(2), 'ascii'))
    : tlv(0x18, Buffer.from(iso, 'ascii'));
}

export const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  country: '2.5.4.6',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  commonName: '2.5.4.3',
  surname: '2.5.4.4',
  title: '2.5.4.12',
  registeredAddress: '2.5.4.26',
  businessCategory: '2.5.4.15',
  uid: '0.9.2342.19200300.100.1.1',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  keyUsage: '2.5.29.15',
  certificateTemplateName: '1.3.6.1.4.1.311.20.2',
} as const;

export const ECDSA_SHA256 = seq(oid(OID.ecdsaWithSha256));

/** A Name: one RDN per attribute, in the order given. Country is a PrintableString, the rest UTF8String. */
export function name(attrs: readonly (readonly [oidText: string, value: string])[]): Buffer {
  return seq(...attrs.map(([o, v]) => set(seq(oid(o), o === OID.country ? printable(v) : utf8(v)))));
}

export function extension(oidText: string, value: Buffer, critical = false): Buffer {
  return critical
    ? seq(oid(oidText), tlv(0x01, Buffer.from([0xff])), octets(value))
    : seq(oid(oidText), octets(value));
}

/** One element read back: its tag, its content, and where the next sibling starts. */
export interface DerNode {
  tag: number;
  /** Where the element (its tag) starts in the buffer read. */
  start: number;
  content: Buffer;
  end: number;
}

export function read(b: Buffer, at = 0): DerNode {
  const tag = b[at]!;
  let len = b[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[at + 2 + i]!;
    start += n;
  }
  if (start + len > b.length) throw new RangeError('DER element runs past its buffer');
  return { tag, start: at, content: b.subarray(start, start + len), end: start + len };
}

/** The children of a constructed element's content. */
export function children(content: Buffer): DerNode[] {
  const out: DerNode[] = [];
  let at = 0;
  while (at < content.length) {
    const node = read(content, at);
    out.push(node);
    at = node.end;
  }
  return out;
}

/** The certificate's own signature (signatureValue's bits, DER ECDSA-Sig-Value): the QR's tag 9. */
export function certificateSignature(certDer: Buffer): Buffer {
  const [, , signature] = children(read(certDer).content);
  if (!signature || signature.tag !== 0x03) throw new RangeError('not an X.509 certificate');
  return signature.content.subarray(1);
}
