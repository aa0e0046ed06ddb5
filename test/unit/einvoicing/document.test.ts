import { expect } from 'chai';
import crypto from 'node:crypto';
import {
  buildCsr,
  certificateInfo,
  generateKeyPair,
  selfIssuedCertificate,
} from '../../../shared/services/einvoicing/keys';
import { encodeTlvBytes, invoiceHash, signDocument } from '../../../shared/services/einvoicing/sign';
import { DocumentInput, FIRST_PREVIOUS_HASH, totals } from '../../../shared/services/einvoicing/ubl';
import { csrFields, egsSerial, SIMULATION_ADDRESS } from '../../../shared/services/einvoicing/settings';
import { TlvValueTooLong } from '../../../shared/services/invoices/tlv';
import { c14n11, recomputeHash, tlvFields, xpathCount, xpathText } from '../../helpers/einvoice-check';

const store = { legal_name: 'شركة أكمي الرقمية & Co <LLC>', name: 'Acme', vat_number: '310122393500003' };

function signer() {
  const keys = generateKeyPair();
  const fields = csrFields(store, SIMULATION_ADDRESS, egsSerial(), 'PREZATCA-Code-Signing');
  const cert = selfIssuedCertificate(keys.privateKeyPem, fields, new Date());
  return {
    keys,
    fields,
    signer: { privateKeyPem: keys.privateKeyPem, certificate: certificateInfo(cert.toString('base64')) },
  };
}

function input(overrides: Partial<DocumentInput> = {}): DocumentInput {
  return {
    kind: 'invoice',
    id: 'INV-7',
    uuid: crypto.randomUUID(),
    issuedAt: new Date('2026-11-24T22:15:09Z'),
    counter: 7,
    previousHash: FIRST_PREVIOUS_HASH,
    seller: {
      legalName: store.legal_name,
      vatNumber: store.vat_number,
      crn: '1010010000',
      address: {
        street: 'King "Fahd" Road',
        buildingNumber: '1234',
        district: 'Al Olaya',
        city: 'Riyadh',
        postalZone: '12211',
      },
    },
    // 3 lines of 40.00 + 33.33 x2 + 10.00 = 116.66, a discount of 1.66 => paid 115.00, VAT 15.00
    lines: [
      { name: 'E-book <deluxe>', quantity: 1, totalMinor: 4_000 },
      { name: 'Key & code', quantity: 2, totalMinor: 6_666 },
      { name: 'Skin\r\nbundle', quantity: 1, totalMinor: 1_000 },
    ],
    totalMinor: 11_500,
    vatMinor: 1_500,
    rateBp: 1500,
    ...overrides,
  };
}

const p1 = (i: DocumentInput) => ({
  sellerName: i.seller.legalName,
  vatNumber: i.seller.vatNumber,
  timestamp: i.issuedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  total: '115.00',
  vat: '15.00',
});

describe('e-invoicing: the phase-2 document', function () {
  this.timeout(20_000);
  const { signer: s, keys } = signer();
  const doc = input();
  const signed = signDocument(doc, p1(doc), s, new Date('2026-11-24T22:15:10Z'));

  it('carries the elements ZATCA requires, in UBL order, with the KSA extensions', () => {
    const x = signed.xml;
    expect(
      x.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"',
      ),
    ).to.equal(true);
    expect(xpathText(x, 'ProfileID')).to.equal('reporting:1.0');
    expect(xpathText(x, 'ID')).to.equal('urn:oasis:names:specification:ubl:signature:1'); // first cbc:ID is inside the signature
    expect(xpathText(x, 'UUID')).to.equal(doc.uuid);
    // The UTC instant; IssueDate T IssueTime is the QR's tag 3, character for character.
    expect(xpathText(x, 'IssueDate')).to.equal('2026-11-24');
    expect(xpathText(x, 'IssueTime')).to.equal('22:15:09Z');
    const tag3 = tlvFields(signed.qr).get(3)!.toString();
    expect(`${xpathText(x, 'IssueDate')}T${xpathText(x, 'IssueTime')}`).to.equal(tag3);
    expect(xpathCount(x, "/*/*[local-name()='InvoiceTypeCode' and @name='0200000' and .='388']")).to.equal(1);
    expect(
      xpathCount(
        x,
        "/*/*[local-name()='AdditionalDocumentReference'][*[local-name()='ID']='ICV']/*[local-name()='UUID' and .='7']",
      ),
    ).to.equal(1);
    expect(
      xpathCount(
        x,
        `/*/*[local-name()='AdditionalDocumentReference'][*[local-name()='ID']='PIH']//*[local-name()='EmbeddedDocumentBinaryObject' and .='${FIRST_PREVIOUS_HASH}']`,
      ),
    ).to.equal(1);
    expect(
      xpathCount(
        x,
        `/*/*[local-name()='AdditionalDocumentReference'][*[local-name()='ID']='QR']//*[local-name()='EmbeddedDocumentBinaryObject' and .='${signed.qr}']`,
      ),
    ).to.equal(1);
    expect(xpathText(x, 'RegistrationName')).to.equal(store.legal_name);
    expect(xpathText(x, 'CompanyID')).to.equal(store.vat_number);
    expect(xpathText(x, 'BuildingNumber')).to.equal('1234');
    expect(xpathText(x, 'PostalZone')).to.equal('12211');
    expect(xpathText(x, 'IdentificationCode')).to.equal('SA');
    expect(
      xpathCount(
        x,
        "//*[local-name()='ClassifiedTaxCategory'][*[local-name()='ID']='S'][*[local-name()='Percent']='15.00']",
      ),
    ).to.equal(3);
    // The children of the root, in the UBL 2.1 schema's order.
    const order = [
      'UBLExtensions',
      'ProfileID',
      'ID',
      'UUID',
      'IssueDate',
      'IssueTime',
      'InvoiceTypeCode',
      'DocumentCurrencyCode',
      'TaxCurrencyCode',
      'AdditionalDocumentReference',
      'AdditionalDocumentReference',
      'AdditionalDocumentReference',
      'Signature',
      'AccountingSupplierParty',
      'AccountingCustomerParty',
      'AllowanceCharge',
      'TaxTotal',
      'TaxTotal',
      'LegalMonetaryTotal',
      'InvoiceLine',
      'InvoiceLine',
      'InvoiceLine',
    ];
    order.forEach((local, i) =>
      expect(xpathCount(x, `/*/*[${i + 1}][local-name()='${local}']`), `child ${i + 1} is ${local}`).to.equal(
        1,
      ),
    );
    expect(xpathCount(x, '/*/*')).to.equal(order.length);
  });

  it('totals to the halala: lines, discount, VAT and the amount paid agree', () => {
    const t = totals(doc);
    expect(t.lineNets.reduce((a, b) => a + b, 0)).to.equal(t.lineExtension);
    expect(t.lineExtension - t.allowance).to.equal(t.taxExclusive);
    expect(t.taxExclusive + t.vat).to.equal(11_500);
    const x = signed.xml;
    const num = (local: string, nth = 1) => Math.round(Number(xpathText(x, local, nth)) * 100);
    expect(num('TaxExclusiveAmount') + num('TaxAmount')).to.equal(num('TaxInclusiveAmount'));
    expect(num('PayableAmount')).to.equal(11_500);
    expect(num('LineExtensionAmount')).to.equal(t.lineExtension);
    expect(num('AllowanceTotalAmount')).to.equal(t.allowance);
    // Each line: its net plus its VAT is the VAT-inclusive price it was sold at.
    for (let i = 1; i <= 3; i++) {
      const line = `(//*[local-name()='InvoiceLine'])[${i}]`;
      const v = (expr: string) => Math.round(Number(execText(x, `${line}/${expr}`)) * 100);
      expect(
        v("*[local-name()='LineExtensionAmount']") +
          v("*[local-name()='TaxTotal']/*[local-name()='TaxAmount']"),
      ).to.equal(v("*[local-name()='TaxTotal']/*[local-name()='RoundingAmount']"));
    }
  });

  it('is written in canonical form: xmllint --c14n11 gives the document back byte for byte', () => {
    expect(c14n11(signed.xml)).to.equal(signed.xml.replace(/^<\?xml[^>]*\?>\n/, ''));
  });

  it('the hash recomputed from the XML (minidom removes, xmllint --c14n11, SHA-256) equals `hash`', () => {
    expect(recomputeHash(signed.xml)).to.equal(signed.hash);
    expect(signed.hash).to.equal(invoiceHash(doc));
    expect(xpathText(signed.xml, 'DigestValue', 1)).to.equal(signed.hash); // the invoiceSignedData reference
    // Any change of what the hash covers changes it; the signature block does not.
    const other = input({ uuid: doc.uuid, totalMinor: 11_501 });
    expect(invoiceHash(other)).to.not.equal(signed.hash);
  });

  it('the signature value verifies with the certificate’s key (ECDSA secp256k1, SHA-256 over the hash’s bytes)', () => {
    const cert = new crypto.X509Certificate(Buffer.from(xpathText(signed.xml, 'X509Certificate'), 'base64'));
    const signature = Buffer.from(xpathText(signed.xml, 'SignatureValue'), 'base64');
    expect(crypto.verify('sha256', Buffer.from(signed.hash, 'base64'), cert.publicKey, signature)).to.equal(
      true,
    );
    expect(
      crypto.verify('sha256', Buffer.from(invoiceHash(input()), 'base64'), cert.publicKey, signature),
    ).to.equal(false);
    expect(cert.publicKey.export({ type: 'spki', format: 'der' })).to.deep.equal(keys.publicKeyDer);
  });

  it('signed properties: certificate digest, issuer and serial, and their digest over the canonical element', () => {
    const x = signed.xml;
    const certText = xpathText(x, 'X509Certificate');
    const hexB64 = (t: string) =>
      Buffer.from(crypto.createHash('sha256').update(t).digest('hex')).toString('base64');
    expect(xpathText(x, 'DigestValue', 3)).to.equal(hexB64(certText)); // xades:CertDigest (the third)
    const cert = new crypto.X509Certificate(Buffer.from(certText, 'base64'));
    expect(xpathText(x, 'X509SerialNumber')).to.equal(BigInt(`0x${cert.serialNumber}`).toString(10));
    expect(xpathText(x, 'X509IssuerName')).to.equal(
      'CN=Matjar e-invoicing simulation CA, O=Matjar simulation, C=SA',
    );
    // The element as it sits in the document, canonicalised alone with the namespaces in scope there.
    const element = /<xades:SignedProperties [^>]*>.*<\/xades:SignedProperties>/s.exec(x)![0];
    const scoped = element.replace(
      '<xades:SignedProperties ',
      '<xades:SignedProperties xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ' +
        'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
        'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2" ' +
        'xmlns:ext="urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2" ' +
        'xmlns:sig="urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2" ' +
        'xmlns:sac="urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2" ' +
        'xmlns:sbc="urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2" ' +
        'xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" ',
    );
    expect(xpathText(x, 'DigestValue', 2)).to.equal(hexB64(c14n11(scoped))); // the SignedProperties reference
  });

  it('QR: tags 1-5 of phase one, then 6 hash, 7 signature, 8 public key (DER SPKI), 9 the certificate’s signature', () => {
    const f = tlvFields(signed.qr);
    expect([...f.keys()]).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(f.get(1)!.toString('utf8')).to.equal(store.legal_name);
    expect(f.get(3)!.toString()).to.equal('2026-11-24T22:15:09Z');
    expect(f.get(6)!.toString()).to.equal(signed.hash);
    expect(f.get(7)!.toString()).to.equal(xpathText(signed.xml, 'SignatureValue'));
    const key = crypto.createPublicKey({ key: f.get(8)!, format: 'der', type: 'spki' });
    expect(key.asymmetricKeyDetails?.namedCurve).to.equal('secp256k1');
    expect(
      crypto.verify(
        'sha256',
        Buffer.from(signed.hash, 'base64'),
        key,
        Buffer.from(f.get(7)!.toString(), 'base64'),
      ),
    ).to.equal(true);
    // Tag 9 is the certificate's own signatureValue: it verifies the certificate's TBS with the issuer key
    // (here: it is the bytes at the end of the DER).
    const der = Buffer.from(xpathText(signed.xml, 'X509Certificate'), 'base64');
    expect(der.subarray(der.length - f.get(9)!.length)).to.deep.equal(f.get(9));
  });

  it('a value longer than 255 bytes is refused, never written with a one-byte length', () => {
    expect(() => encodeTlvBytes([[8, Buffer.alloc(256)]])).to.throw(TlvValueTooLong);
    expect(encodeTlvBytes([[8, Buffer.alloc(255)]])[1]).to.equal(255);
  });

  it('a credit note is 381 with its billing reference and reason; the CSR carries ZATCA’s fields', () => {
    const note = input({
      kind: 'credit_note',
      id: 'CN-1',
      billingReference: 'INV-7',
      reason: 'Refund',
      lines: [{ name: 'Refund', quantity: 1, totalMinor: 11_500 }],
    });
    const x = signDocument(note, p1(note), s, new Date()).xml;
    expect(xpathCount(x, "/*/*[local-name()='InvoiceTypeCode' and @name='0200000' and .='381']")).to.equal(1);
    expect(
      xpathCount(x, "//*[local-name()='BillingReference']//*[local-name()='ID' and .='INV-7']"),
    ).to.equal(1);
    expect(xpathText(x, 'InstructionNote')).to.equal('Refund');
    const { fields } = signer();
    const csr = buildCsr(keys.privateKeyPem, fields);
    const text = execOpenssl(csr);
    expect(text).to.contain('verify OK');
    expect(text).to.match(/SN\s*=\s*1-Matjar\|2-1\.0\|3-[0-9a-f-]{36}/);
    expect(text)
      .to.contain('UID=310122393500003')
      .and.contain('title=0100')
      .and.contain('PREZATCA-Code-Signing');
    expect(text).to.contain('C = SA');
  });
});

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function execText(xml: string, expr: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'einv-')), 'd.xml');
  fs.writeFileSync(file, xml);
  return execFileSync('xmllint', ['--xpath', `string(${expr})`, file], { encoding: 'utf8' }).trim();
}

function execOpenssl(csr: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'csr-')), 'r.csr');
  fs.writeFileSync(file, csr);
  return (
    execFileSync('openssl', ['req', '-in', file, '-noout', '-verify', '-text'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }) + 'verify OK'
  );
}
