import { formatAmount, inclusiveVat } from '../invoices/amounts';
import { el, XmlElement, xmlSafe } from './xml';

/**
 * The UBL 2.1 document of a simplified tax invoice (388) or credit note (381) with ZATCA's KSA extensions
 * (ZATCA "E-invoicing XML Implementation Standard" and "Electronic Invoice Data Dictionary"; element order
 * from the UBL 2.1 Invoice schema). Amounts are integer halalas inside and two-decimal strings here.
 */

export const NS = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  ext: 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2',
  sig: 'urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2',
  sac: 'urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2',
  sbc: 'urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xades: 'http://uri.etsi.org/01903/v1.3.2#',
} as const;

export const ROOT_NAMESPACES = {
  xmlns: NS.invoice,
  'xmlns:cac': NS.cac,
  'xmlns:cbc': NS.cbc,
  'xmlns:ext': NS.ext,
};

/** The first document's previous hash, as ZATCA's samples have it (base64 of the hex SHA-256 of "0"). */
export const FIRST_PREVIOUS_HASH =
  'NWZlY2ViNjZmZmM4NmYzOGQ5NTI3ODZjNmQ2OTZjNzljMmRiYzIzOWRkNGU5MWI0NjcyOWQ3M2EyN2ZiNTdlOQ==';

export const SIMPLIFIED_TRANSACTION = '0200000';
export const TYPE_CODE = { invoice: '388', credit_note: '381', debit_note: '383' } as const;

export interface SellerAddress {
  street: string;
  buildingNumber: string;
  district: string;
  city: string;
  postalZone: string;
}

export interface Seller {
  legalName: string;
  vatNumber: string;
  /** Commercial registration number (schemeID CRN); absent: no party identification. */
  crn: string | null;
  address: SellerAddress;
}

export interface DocumentLine {
  name: string;
  quantity: number;
  /** The line's total as sold, VAT included, in halalas. */
  totalMinor: number;
}

export interface DocumentInput {
  /** A debit note (383) is only ever built for ZATCA's compliance checks: the platform issues none. */
  kind: 'invoice' | 'credit_note' | 'debit_note';
  /** cbc:ID, e.g. `INV-12`, `CN-3`. */
  id: string;
  uuid: string;
  issuedAt: Date;
  counter: number;
  previousHash: string;
  seller: Seller;
  lines: DocumentLine[];
  /** The document's total, VAT included, and the VAT in it (the order's recorded split), in halalas. */
  totalMinor: number;
  vatMinor: number;
  /** VAT rate in basis points (1500). */
  rateBp: number;
  /** A credit note: the invoice it credits (cbc:ID) and the reason (KSA-10). */
  billingReference?: string;
  reason?: string;
}

const SAR = 'SAR';
const amount = (minor: number): string => formatAmount(minor, SAR);
const money = (name: string, minor: number) => el(name, { currencyID: SAR }, amount(minor));
const percent = (bp: number): string => formatAmount(bp, SAR);

/**
 * The issue date and time: the UTC instant, the time written with its `Z`, so that IssueDate `T` IssueTime
 * is character for character the QR's tag 3 (ZATCA checks the QR's time stamp against them).
 */
export function issueDateTime(at: Date): { date: string; time: string } {
  const iso = at.toISOString();
  return { date: iso.slice(0, 10), time: `${iso.slice(11, 19)}Z` };
}

function vatCategory(name: string, rateBp: number, withSchemes: boolean): XmlElement {
  return el(
    name,
    null,
    el('cbc:ID', withSchemes ? { schemeAgencyID: '6', schemeID: 'UN/ECE 5305' } : null, 'S'),
    el('cbc:Percent', null, percent(rateBp)),
    el(
      'cac:TaxScheme',
      null,
      el('cbc:ID', withSchemes ? { schemeAgencyID: '6', schemeID: 'UN/ECE 5153' } : null, 'VAT'),
    ),
  );
}

/**
 * Each line's amount without VAT, in halalas, so that they add up to the net of the lines' VAT-inclusive
 * sum exactly: each line is split as the order was (round half up), and the halalas the per-line rounding
 * leaves over go to the largest line.
 */
export function lineNets(lines: DocumentLine[], rateBp: number): number[] {
  const nets = lines.map((l) => l.totalMinor - inclusiveVat(l.totalMinor, rateBp));
  const sum = lines.reduce((s, l) => s + l.totalMinor, 0);
  const target = sum - inclusiveVat(sum, rateBp);
  const diff = target - nets.reduce((s, n) => s + n, 0);
  if (diff !== 0 && nets.length > 0) {
    let largest = 0;
    lines.forEach((l, i) => {
      if (l.totalMinor > lines[largest]!.totalMinor) largest = i;
    });
    nets[largest]! += diff;
  }
  return nets;
}

export interface Totals {
  lineNets: number[];
  lineExtension: number;
  allowance: number;
  taxExclusive: number;
  vat: number;
  taxInclusive: number;
}

/**
 * The document's totals: the lines' nets, a document-level allowance (the discount, without VAT) that
 * brings them to the order's net, the order's VAT and total. TaxExclusive + VAT = TaxInclusive = the
 * amount paid, to the halala.
 */
export function totals(input: DocumentInput): Totals {
  const nets = lineNets(input.lines, input.rateBp);
  const lineExtension = nets.reduce((s, n) => s + n, 0);
  const taxExclusive = input.totalMinor - input.vatMinor;
  return {
    lineNets: nets,
    lineExtension,
    allowance: lineExtension - taxExclusive,
    taxExclusive,
    vat: input.vatMinor,
    taxInclusive: input.totalMinor,
  };
}

export interface BuildOptions {
  /** ext:UBLExtensions (the signature), first child of the root; left out of the hash. */
  extensions?: XmlElement;
  /** The QR's base64 text (an AdditionalDocumentReference `QR`); left out of the hash. */
  qr?: string;
  /** cac:Signature (the reference to the signature); left out of the hash. */
  signatureReference?: boolean;
}

/**
 * The document. Without options it is the form the hash covers (ZATCA's hash leaves out UBLExtensions,
 * the QR reference and cac:Signature); with all three it is the signed document.
 */
export function buildDocument(input: DocumentInput, opts: BuildOptions = {}): XmlElement {
  const t = totals(input);
  const { date, time } = issueDateTime(input.issuedAt);
  const s = input.seller;
  const text = (v: string) => xmlSafe(v);
  return el(
    'Invoice',
    ROOT_NAMESPACES,
    opts.extensions ?? null,
    el('cbc:ProfileID', null, 'reporting:1.0'),
    el('cbc:ID', null, input.id),
    el('cbc:UUID', null, input.uuid),
    el('cbc:IssueDate', null, date),
    el('cbc:IssueTime', null, time),
    el('cbc:InvoiceTypeCode', { name: SIMPLIFIED_TRANSACTION }, TYPE_CODE[input.kind]),
    el('cbc:DocumentCurrencyCode', null, SAR),
    el('cbc:TaxCurrencyCode', null, SAR),
    input.billingReference !== undefined &&
      el(
        'cac:BillingReference',
        null,
        el('cac:InvoiceDocumentReference', null, el('cbc:ID', null, input.billingReference)),
      ),
    el(
      'cac:AdditionalDocumentReference',
      null,
      el('cbc:ID', null, 'ICV'),
      el('cbc:UUID', null, String(input.counter)),
    ),
    el(
      'cac:AdditionalDocumentReference',
      null,
      el('cbc:ID', null, 'PIH'),
      el(
        'cac:Attachment',
        null,
        el('cbc:EmbeddedDocumentBinaryObject', { mimeCode: 'text/plain' }, input.previousHash),
      ),
    ),
    opts.qr !== undefined &&
      el(
        'cac:AdditionalDocumentReference',
        null,
        el('cbc:ID', null, 'QR'),
        el(
          'cac:Attachment',
          null,
          el('cbc:EmbeddedDocumentBinaryObject', { mimeCode: 'text/plain' }, opts.qr),
        ),
      ),
    opts.signatureReference === true &&
      el(
        'cac:Signature',
        null,
        el('cbc:ID', null, 'urn:oasis:names:specification:ubl:signature:Invoice'),
        el('cbc:SignatureMethod', null, 'urn:oasis:names:specification:ubl:dsig:enveloped:xades'),
      ),
    el(
      'cac:AccountingSupplierParty',
      null,
      el(
        'cac:Party',
        null,
        s.crn !== null && el('cac:PartyIdentification', null, el('cbc:ID', { schemeID: 'CRN' }, s.crn)),
        el(
          'cac:PostalAddress',
          null,
          el('cbc:StreetName', null, text(s.address.street)),
          el('cbc:BuildingNumber', null, s.address.buildingNumber),
          el('cbc:CitySubdivisionName', null, text(s.address.district)),
          el('cbc:CityName', null, text(s.address.city)),
          el('cbc:PostalZone', null, s.address.postalZone),
          el('cac:Country', null, el('cbc:IdentificationCode', null, 'SA')),
        ),
        el(
          'cac:PartyTaxScheme',
          null,
          el('cbc:CompanyID', null, s.vatNumber),
          el('cac:TaxScheme', null, el('cbc:ID', null, 'VAT')),
        ),
        el('cac:PartyLegalEntity', null, el('cbc:RegistrationName', null, text(s.legalName))),
      ),
    ),
    el('cac:AccountingCustomerParty', null),
    input.kind !== 'invoice' &&
      el(
        'cac:PaymentMeans',
        null,
        el('cbc:PaymentMeansCode', null, '10'),
        el('cbc:InstructionNote', null, text(input.reason ?? 'Refund')),
      ),
    // The discount without VAT; a negative one (rounding the other way) is a charge.
    t.allowance !== 0 &&
      el(
        'cac:AllowanceCharge',
        null,
        el('cbc:ChargeIndicator', null, t.allowance > 0 ? 'false' : 'true'),
        el('cbc:AllowanceChargeReason', null, t.allowance > 0 ? 'discount' : 'rounding'),
        money('cbc:Amount', Math.abs(t.allowance)),
        vatCategory('cac:TaxCategory', input.rateBp, true),
      ),
    el(
      'cac:TaxTotal',
      null,
      money('cbc:TaxAmount', t.vat),
      el(
        'cac:TaxSubtotal',
        null,
        money('cbc:TaxableAmount', t.taxExclusive),
        money('cbc:TaxAmount', t.vat),
        vatCategory('cac:TaxCategory', input.rateBp, true),
      ),
    ),
    el('cac:TaxTotal', null, money('cbc:TaxAmount', t.vat)),
    el(
      'cac:LegalMonetaryTotal',
      null,
      money('cbc:LineExtensionAmount', t.lineExtension),
      money('cbc:TaxExclusiveAmount', t.taxExclusive),
      money('cbc:TaxInclusiveAmount', t.taxInclusive),
      money('cbc:AllowanceTotalAmount', Math.max(t.allowance, 0)),
      t.allowance < 0 && money('cbc:ChargeTotalAmount', -t.allowance),
      money('cbc:PrepaidAmount', 0),
      money('cbc:PayableAmount', t.taxInclusive),
    ),
    ...input.lines.map((line, i) => {
      const net = t.lineNets[i]!;
      const qty = Math.max(line.quantity, 1);
      return el(
        'cac:InvoiceLine',
        null,
        el('cbc:ID', null, String(i + 1)),
        el('cbc:InvoicedQuantity', { unitCode: 'PCE' }, `${qty}.000000`),
        money('cbc:LineExtensionAmount', net),
        el(
          'cac:TaxTotal',
          null,
          money('cbc:TaxAmount', line.totalMinor - net),
          money('cbc:RoundingAmount', line.totalMinor),
        ),
        el(
          'cac:Item',
          null,
          el('cbc:Name', null, text(line.name)),
          vatCategory('cac:ClassifiedTaxCategory', input.rateBp, false),
        ),
        el('cac:Price', null, money('cbc:PriceAmount', Math.round(net / qty))),
      );
    }),
  );
}
