import crypto from 'node:crypto';
import {
  bits,
  ctx,
  ECDSA_SHA256,
  certificateSignature,
  extension,
  integer,
  name,
  OID,
  printable,
  seq,
  set,
  oid,
  time,
} from './der';

/**
 * The store's cryptographic stamp: an ECDSA key on secp256k1 (ZATCA's curve), the CSR ZATCA's compliance
 * CSID endpoint takes, and, in simulation mode, a self-issued test certificate in the shape ZATCA issues
 * (docs/einvoicing.md, "Onboarding"). Keys leave this file only as PEM text, sealed by the caller.
 */

export interface KeyPair {
  /** PKCS #8 PEM of the private key (seal it before it is stored). */
  privateKeyPem: string;
  /** DER SubjectPublicKeyInfo of the public key: the QR's tag 8. */
  publicKeyDer: Buffer;
}

export function generateKeyPair(): KeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyDer: publicKey.export({ type: 'spki', format: 'der' }),
  };
}

export function publicKeyOf(privateKeyPem: string): Buffer {
  return crypto.createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' });
}

/** What ZATCA's CSR carries (the Fatoora portal's onboarding guide, "CSR configuration"). */
export interface CsrFields {
  /** csr.common.name: the EGS unit's name, e.g. `TST-886431145-310122393500003`. */
  commonName: string;
  /** csr.serial.number: `1-<solution>|2-<model or version>|3-<device serial>`. */
  serialNumber: string;
  /** csr.organization.identifier: the VAT registration number (15 digits). */
  vatNumber: string;
  /** csr.organization.unit.name: the branch. */
  unit: string;
  /** csr.organization.name: the taxpayer's legal name. */
  organization: string;
  /** csr.invoice.type: four digits, standard/simplified/future/future: `0100` issues simplified only. */
  invoiceType: string;
  /** csr.location.address */
  location: string;
  /** csr.industry.business.category */
  industry: string;
  /** The certificate template: `ZATCA-Code-Signing`, `PREZATCA-Code-Signing` (simulation), `TSTZATCA-Code-Signing`. */
  template: string;
}

function subject(f: CsrFields): Buffer {
  return name([
    [OID.country, 'SA'],
    [OID.organizationalUnit, f.unit],
    [OID.organization, f.organization],
    [OID.commonName, f.commonName],
  ]);
}

/** subjectAltName: one directoryName with SN, UID, title, registeredAddress and businessCategory. */
function altName(f: CsrFields): Buffer {
  const dirName = name([
    [OID.surname, f.serialNumber],
    [OID.uid, f.vatNumber],
    [OID.title, f.invoiceType],
    [OID.registeredAddress, f.location],
    [OID.businessCategory, f.industry],
  ]);
  return seq(ctx(4, dirName));
}

/** A PKCS #10 request signed with the key (ecdsa-with-SHA256), as PEM. */
export function buildCsr(privateKeyPem: string, f: CsrFields): string {
  const spki = publicKeyOf(privateKeyPem);
  const extensions = seq(
    extension(OID.certificateTemplateName, printable(f.template)),
    extension(OID.subjectAltName, altName(f)),
  );
  const info = seq(integer(0), subject(f), spki, ctx(0, seq(oid(OID.extensionRequest), set(extensions))));
  const signature = crypto.sign('sha256', info, privateKeyPem);
  const der = seq(info, ECDSA_SHA256, bits(signature));
  return pem('CERTIFICATE REQUEST', der);
}

/**
 * A test certificate for simulation mode: issued by a throwaway key of its own (named like ZATCA's test
 * CA), for the store's key, carrying the CSR's subject and alternative name. Never trusted by ZATCA.
 */
export function selfIssuedCertificate(privateKeyPem: string, f: CsrFields, now: Date): Buffer {
  const issuerKey = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
  const issuer = name([
    [OID.country, 'SA'],
    [OID.organization, 'Matjar simulation'],
    [OID.commonName, 'Matjar e-invoicing simulation CA'],
  ]);
  const notAfter = new Date(now.getTime() + 5 * 365 * 24 * 3600 * 1000);
  const serial = crypto.randomBytes(12);
  serial[0]! &= 0x7f;
  const keyUsage = bits(Buffer.from([0x80])); // digitalSignature
  const tbs = seq(
    ctx(0, integer(2)),
    integer(serial),
    ECDSA_SHA256,
    issuer,
    seq(time(new Date(now.getTime() - 60_000)), time(notAfter)),
    subject(f),
    publicKeyOf(privateKeyPem),
    ctx(3, seq(extension(OID.keyUsage, keyUsage, true), extension(OID.subjectAltName, altName(f)))),
  );
  const signature = crypto.sign('sha256', tbs, issuerKey);
  return seq(tbs, ECDSA_SHA256, bits(signature));
}

export function pem(label: string, der: Buffer): string {
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** What the signature block and the QR take from the signing certificate. */
export interface CertificateInfo {
  /** The certificate as ZATCA hands it out: base64 of its DER (ds:X509Certificate). */
  base64: string;
  /** ds:X509IssuerName: the issuer's RDNs, most significant last, joined by ", " (as ZATCA's SDK writes it). */
  issuer: string;
  /** ds:X509SerialNumber in decimal. */
  serialNumber: string;
  /** xades:CertDigest: base64 of the hex SHA-256 of the base64 text (ZATCA's SDK's form). */
  digest: string;
  /** Tag 8: DER SubjectPublicKeyInfo. */
  publicKeyDer: Buffer;
  /** Tag 9: the certificate's signature. */
  signature: Buffer;
  notAfter: Date;
}

export function certificateInfo(base64Der: string): CertificateInfo {
  const der = Buffer.from(base64Der, 'base64');
  const x509 = new crypto.X509Certificate(der);
  return {
    base64: base64Der,
    issuer: x509.issuer.split('\n').reverse().join(', '),
    serialNumber: BigInt(`0x${x509.serialNumber}`).toString(10),
    digest: Buffer.from(crypto.createHash('sha256').update(base64Der).digest('hex')).toString('base64'),
    publicKeyDer: x509.publicKey.export({ type: 'spki', format: 'der' }),
    signature: certificateSignature(der),
    notAfter: new Date(x509.validTo),
  };
}
