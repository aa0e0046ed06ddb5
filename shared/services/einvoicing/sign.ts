import crypto from 'node:crypto';
import { TLV_MAX_VALUE_BYTES, TlvValueTooLong } from '../invoices/tlv';
import type { CertificateInfo } from './keys';
import { buildDocument, DocumentInput, NS, ROOT_NAMESPACES } from './ubl';
import { el, serialize, XML_DECLARATION, XmlElement } from './xml';

/**
 * Hash, signature and QR of a phase-2 document, as ZATCA's "E-invoicing Detailed Technical Guideline"
 * and "Security Features Implementation Standards" describe them and ZATCA's SDK (fatoora) computes them:
 *
 * - the hash: SHA-256 over the document canonicalised with C14N 1.1 after removing ext:UBLExtensions,
 *   cac:Signature and the AdditionalDocumentReference `QR`; base64 of the 32 bytes;
 * - the signature value: ECDSA (secp256k1) with SHA-256 over the hash's 32 bytes, DER, base64;
 * - the signed properties (XAdES): signing time and the certificate's digest, issuer and serial; their
 *   digest is SHA-256 over the element canonicalised (C14N 1.1, in the document's namespace context),
 *   written as ZATCA's SDK writes it: base64 of the hex digest;
 * - the QR: phase one's tags 1-5, then 6 hash, 7 signature value, 8 public key (DER SPKI), 9 the
 *   certificate's signature. Every length is one byte; a value longer than 255 bytes is refused, never
 *   written with a one-byte length (none of ours can be: tags 6-9 are 44, at most 96, 88 and at most 72).
 */

const C14N11 = 'http://www.w3.org/2006/12/xml-c14n11';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const XPATH = 'http://www.w3.org/TR/1999/REC-xpath-19991116';

/** The text the hash covers: the canonical form of the document without the three left-out elements. */
export function hashInput(input: DocumentInput): string {
  return serialize(buildDocument(input));
}

export function invoiceHash(input: DocumentInput): string {
  return crypto.createHash('sha256').update(hashInput(input), 'utf8').digest('base64');
}

/** Tag-length-value with byte values; each length one byte, so a value over 255 bytes is refused. */
export function encodeTlvBytes(fields: readonly (readonly [number, Buffer | string])[]): Buffer {
  const parts: Buffer[] = [];
  for (const [tag, value] of fields) {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    if (bytes.length > TLV_MAX_VALUE_BYTES) throw new TlvValueTooLong(tag, bytes.length);
    parts.push(Buffer.from([tag, bytes.length]), bytes);
  }
  return Buffer.concat(parts);
}

export interface Phase1Fields {
  sellerName: string;
  vatNumber: string;
  timestamp: string;
  total: string;
  vat: string;
}

export function phase2Qr(
  p1: Phase1Fields,
  hash: string,
  signatureValue: string,
  cert: CertificateInfo,
): string {
  return encodeTlvBytes([
    [1, p1.sellerName],
    [2, p1.vatNumber],
    [3, p1.timestamp],
    [4, p1.total],
    [5, p1.vat],
    [6, hash],
    [7, signatureValue],
    [8, cert.publicKeyDer],
    [9, cert.signature],
  ]).toString('base64');
}

/** Namespace declarations in scope at xades:SignedProperties in the signed document. */
export const SIGNED_PROPERTIES_SCOPE: Record<string, string> = {
  ...ROOT_NAMESPACES,
  'xmlns:sig': NS.sig,
  'xmlns:sac': NS.sac,
  'xmlns:sbc': NS.sbc,
  'xmlns:ds': NS.ds,
  'xmlns:xades': NS.xades,
};

function signedProperties(cert: CertificateInfo, signingTime: Date): XmlElement {
  return el(
    'xades:SignedProperties',
    { Id: 'xadesSignedProperties' },
    el(
      'xades:SignedSignatureProperties',
      null,
      el('xades:SigningTime', null, signingTime.toISOString().slice(0, 19)),
      el(
        'xades:SigningCertificate',
        null,
        el(
          'xades:Cert',
          null,
          el(
            'xades:CertDigest',
            null,
            el('ds:DigestMethod', { Algorithm: SHA256 }),
            el('ds:DigestValue', null, cert.digest),
          ),
          el(
            'xades:IssuerSerial',
            null,
            el('ds:X509IssuerName', null, cert.issuer),
            el('ds:X509SerialNumber', null, cert.serialNumber),
          ),
        ),
      ),
    ),
  );
}

/** ZATCA's form of a digest in the signature block: base64 of the lower-case hex SHA-256. */
export function hexDigestBase64(text: string): string {
  return Buffer.from(crypto.createHash('sha256').update(text, 'utf8').digest('hex')).toString('base64');
}

export interface SignedDocument {
  hash: string;
  signatureValue: string;
  qr: string;
  /** The signed document, with its XML declaration. */
  xml: string;
}

export interface Signer {
  privateKeyPem: string;
  certificate: CertificateInfo;
}

export function signDocument(
  input: DocumentInput,
  p1: Phase1Fields,
  signer: Signer,
  signingTime: Date,
): SignedDocument {
  const hash = invoiceHash(input);
  const signatureValue = crypto
    .sign('sha256', Buffer.from(hash, 'base64'), { key: signer.privateKeyPem, dsaEncoding: 'der' })
    .toString('base64');
  const props = signedProperties(signer.certificate, signingTime);
  const propsDigest = hexDigestBase64(serialize(props, SIGNED_PROPERTIES_SCOPE));
  const transform = (xpath: string) => el('ds:Transform', { Algorithm: XPATH }, el('ds:XPath', null, xpath));
  const signature = el(
    'ds:Signature',
    { 'xmlns:ds': NS.ds, Id: 'signature' },
    el(
      'ds:SignedInfo',
      null,
      el('ds:CanonicalizationMethod', { Algorithm: C14N11 }),
      el('ds:SignatureMethod', { Algorithm: 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256' }),
      el(
        'ds:Reference',
        { Id: 'invoiceSignedData', URI: '' },
        el(
          'ds:Transforms',
          null,
          transform('not(//ancestor-or-self::ext:UBLExtensions)'),
          transform('not(//ancestor-or-self::cac:Signature)'),
          transform("not(//ancestor-or-self::cac:AdditionalDocumentReference[cbc:ID='QR'])"),
          el('ds:Transform', { Algorithm: C14N11 }),
        ),
        el('ds:DigestMethod', { Algorithm: SHA256 }),
        el('ds:DigestValue', null, hash),
      ),
      el(
        'ds:Reference',
        { Type: 'http://www.w3.org/2000/09/xmldsig#SignatureProperties', URI: '#xadesSignedProperties' },
        el('ds:DigestMethod', { Algorithm: SHA256 }),
        el('ds:DigestValue', null, propsDigest),
      ),
    ),
    el('ds:SignatureValue', null, signatureValue),
    el(
      'ds:KeyInfo',
      null,
      el('ds:X509Data', null, el('ds:X509Certificate', null, signer.certificate.base64)),
    ),
    el(
      'ds:Object',
      null,
      el('xades:QualifyingProperties', { 'xmlns:xades': NS.xades, Target: 'signature' }, props),
    ),
  );
  const extensions = el(
    'ext:UBLExtensions',
    null,
    el(
      'ext:UBLExtension',
      null,
      el('ext:ExtensionURI', null, 'urn:oasis:names:specification:ubl:dsig:enveloped:xades'),
      el(
        'ext:ExtensionContent',
        null,
        el(
          'sig:UBLDocumentSignatures',
          { 'xmlns:sig': NS.sig, 'xmlns:sac': NS.sac, 'xmlns:sbc': NS.sbc },
          el(
            'sac:SignatureInformation',
            null,
            el('cbc:ID', null, 'urn:oasis:names:specification:ubl:signature:1'),
            el('sbc:ReferencedSignatureID', null, 'urn:oasis:names:specification:ubl:signature:Invoice'),
            signature,
          ),
        ),
      ),
    ),
  );
  const qr = phase2Qr(p1, hash, signatureValue, signer.certificate);
  const xml = XML_DECLARATION + serialize(buildDocument(input, { extensions, qr, signatureReference: true }));
  return { hash, signatureValue, qr, xml };
}
