import crypto from 'node:crypto';
import {
  children,
  ECDSA_SHA256,
  bits,
  ctx,
  integer,
  name,
  OID,
  read,
  seq,
  time,
  extension,
} from '../../shared/services/einvoicing/der';
import { recomputeHash } from './einvoice-check';
import { FakeAnswer, FakeRequest, FakeServer } from './fake-server';

/**
 * ZATCA's e-invoicing API (Fatoora developer portal, API version V2) on loopback, for tests:
 *
 * - POST /compliance (OTP header, `{csr}` base64 of the PEM): the CSR's self-signature is verified and a
 *   compliance CSID issued by this stub's own CA: `{requestID, dispositionMessage: "ISSUED",
 *   binarySecurityToken, secret, errors: null}`; 400 `{code: "Invalid-OTP", message}` for an OTP it does
 *   not accept (`validOtps`).
 * - POST /compliance/invoices (Basic with the compliance CSID): the invoice's hash and UUID must match the
 *   body, and its signature value must verify with the key of the certificate it carries, which must be
 *   one this stub issued; answers `validationResults` and `reportingStatus` as ZATCA does.
 * - POST /production/csids (Basic with the compliance CSID, `{compliance_request_id}`) and PATCH
 *   /production/csids (Basic with the production CSID, OTP header, `{csr}`): a production CSID.
 * - POST /invoices/reporting/single (Basic with a production CSID): 200 REPORTED, 202 with warnings
 *   (`warnNext`), 400 NOT_REPORTED with error messages (`rejectNext`); outages through `failNext`.
 *   `trustAnyCertificate` accepts a self-issued certificate (simulation stores).
 * Every request must carry `Accept-Version: V2` (else 400).
 */
export class FakeZatca extends FakeServer {
  readonly validOtps = new Set(['123345', '654321']);
  trustAnyCertificate = false;
  private readonly ca = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey;
  /** binarySecurityToken -> secret, kind and the compliance request it came from. */
  private readonly csids = new Map<
    string,
    { secret: string; kind: 'compliance' | 'production'; requestId: string; spki: Buffer }
  >();
  private rejects: string[] = [];
  private warns = 0;
  /** Documents reported, in order: uuid, hash and the XML. */
  readonly reported: { uuid: string; hash: string; xml: string }[] = [];
  readonly checked: { uuid: string; hash: string; xml: string }[] = [];

  /** The next reports (or the one of `uuid`) are rejected. */
  rejectNext(uuid = '*'): void {
    this.rejects.push(uuid);
  }

  warnNext(count = 1): void {
    this.warns += count;
  }

  private issue(
    spki: Buffer,
    subject: Buffer,
    kind: 'compliance' | 'production',
    requestId: string,
  ): FakeAnswer {
    const issuer = name([[OID.commonName, 'TSZEINVOICE-SubCA-1']]);
    const now = new Date();
    const tbs = seq(
      ctx(0, integer(2)),
      integer(crypto.randomBytes(10)),
      ECDSA_SHA256,
      issuer,
      seq(time(now), time(new Date(now.getTime() + 365 * 24 * 3600 * 1000))),
      subject,
      spki,
      ctx(3, seq(extension(OID.keyUsage, bits(Buffer.from([0x80])), true))),
    );
    const cert = seq(tbs, ECDSA_SHA256, bits(crypto.sign('sha256', tbs, this.ca)));
    const token = Buffer.from(cert.toString('base64')).toString('base64');
    const secret = crypto.randomBytes(16).toString('base64');
    this.csids.set(token, { secret, kind, requestId, spki });
    return {
      status: 200,
      body: {
        requestID: Number(requestId),
        dispositionMessage: 'ISSUED',
        binarySecurityToken: token,
        secret,
        errors: null,
      },
    };
  }

  private csrParts(b64: unknown): { spki: Buffer; subject: Buffer } | null {
    if (typeof b64 !== 'string') return null;
    try {
      const pem = Buffer.from(b64, 'base64').toString('utf8');
      const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
      const top = read(der).content;
      const [info, , signature] = children(top);
      const infoBytes = top.subarray(info!.start, info!.end);
      const parts = children(info!.content);
      const subject = info!.content.subarray(parts[1]!.start, parts[1]!.end);
      const spki = Buffer.from(info!.content.subarray(parts[2]!.start, parts[2]!.end));
      const key = crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' });
      if (!crypto.verify('sha256', infoBytes, key, signature!.content.subarray(1))) return null;
      return { spki, subject };
    } catch {
      return null;
    }
  }

  private auth(req: FakeRequest): {
    token: string;
    kind: 'compliance' | 'production' | 'trusted';
    requestId: string;
    spki: Buffer | null;
  } | null {
    const header = String(req.headers.authorization ?? '');
    if (!header.startsWith('Basic ')) return null;
    const [token, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const known = this.csids.get(token ?? '');
    if (known && known.secret === secret)
      return { token: token!, kind: known.kind, requestId: known.requestId, spki: known.spki };
    if (this.trustAnyCertificate && token && secret)
      return { token, kind: 'trusted', requestId: '', spki: null };
    return null;
  }

  /** The checks ZATCA's validator makes that a stub can: hash and UUID as sent, signature by the certificate's key. */
  private validate(
    body: Record<string, unknown> | null,
    spki: Buffer | null,
  ): { xml: string; errors: string[] } {
    const errors: string[] = [];
    const xml = typeof body?.invoice === 'string' ? Buffer.from(body.invoice, 'base64').toString('utf8') : '';
    const digest =
      /<ds:Reference Id="invoiceSignedData" URI="">.*?<ds:DigestValue>([^<]+)<\/ds:DigestValue>/s.exec(
        xml,
      )?.[1];
    const uuid = /<cbc:UUID>([0-9a-f-]{36})<\/cbc:UUID>/.exec(xml)?.[1];
    const signature = /<ds:SignatureValue>([^<]+)<\/ds:SignatureValue>/.exec(xml)?.[1];
    const cert = /<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/.exec(xml)?.[1];
    if (!xml.startsWith('<?xml')) errors.push('XSD_INVALID: not an XML document');
    if (digest !== body?.invoiceHash)
      errors.push('invoiceHash_QRCODE_INVALID: the hash does not match the document');
    else if (xml) {
      // ZATCA recomputes the hash from the document (here: minidom and xmllint --c14n11, einvoice-check.ts).
      try {
        if (recomputeHash(xml) !== digest)
          errors.push('invalid-invoice-hash: the document does not hash to its hash');
      } catch {
        errors.push('XSD_INVALID: the document does not parse');
      }
    }
    if (uuid !== body?.uuid) errors.push('invalid-uuid: the UUID does not match the document');
    try {
      const x509 = new crypto.X509Certificate(Buffer.from(cert ?? '', 'base64'));
      const key = x509.publicKey;
      if (spki && !key.export({ type: 'spki', format: 'der' }).equals(spki))
        errors.push('certificate-mismatch: not the CSID’s certificate');
      if (
        !crypto.verify(
          'sha256',
          Buffer.from(digest ?? '', 'base64'),
          key,
          Buffer.from(signature ?? '', 'base64'),
        )
      )
        errors.push('signature-invalid: the signature does not verify');
    } catch {
      errors.push('certificate-invalid: no readable certificate');
    }
    return { xml, errors };
  }

  private results(errors: string[], warnings: string[]) {
    const msg = (type: string, status: string) => (m: string) => {
      const [code, ...rest] = m.split(': ');
      return { type, code, category: 'KSA', message: rest.join(': '), status };
    };
    return {
      infoMessages: [
        {
          type: 'INFO',
          code: 'XSD_ZATCA_VALID',
          category: 'XSD validation',
          message: 'Complied with UBL 2.1 standards in line with ZATCA specifications',
          status: 'PASS',
        },
      ],
      warningMessages: warnings.map(msg('WARNING', 'WARNING')),
      errorMessages: errors.map(msg('ERROR', 'ERROR')),
      status: errors.length ? 'ERROR' : warnings.length ? 'WARNING' : 'PASS',
    };
  }

  protected handle(req: FakeRequest): FakeAnswer {
    if (req.headers['accept-version'] !== 'V2')
      return { status: 400, body: { message: 'Accept-Version V2 is required' } };
    const body = this.json(req.body);
    if (req.method === 'POST' && req.path === '/compliance') {
      if (!this.validOtps.has(String(req.headers.otp ?? '')))
        return { status: 400, body: { code: 'Invalid-OTP', message: 'The provided OTP is invalid' } };
      const csr = this.csrParts(body?.csr);
      if (!csr) return { status: 400, body: { code: 'Invalid-CSR', message: 'The provided CSR is invalid' } };
      return this.issue(csr.spki, csr.subject, 'compliance', String(1_234_567_890_000 + this.csids.size));
    }
    const who = this.auth(req);
    if (!who) return { status: 401, body: null };
    if (req.method === 'POST' && req.path === '/compliance/invoices') {
      if (who.kind !== 'compliance') return { status: 401, body: null };
      const { xml, errors } = this.validate(body, who.spki);
      this.checked.push({ uuid: String(body?.uuid), hash: String(body?.invoiceHash), xml });
      return {
        status: errors.length ? 400 : 200,
        body: {
          validationResults: this.results(errors, []),
          reportingStatus: errors.length ? 'NOT_REPORTED' : 'REPORTED',
          clearanceStatus: null,
          qrSellertStatus: null,
          qrBuyertStatus: null,
        },
      };
    }
    if (req.method === 'POST' && req.path === '/production/csids') {
      if (who.kind !== 'compliance' || String(body?.compliance_request_id) !== who.requestId)
        return {
          status: 400,
          body: { code: 'Invalid-Request-ID', message: 'The compliance request id is invalid' },
        };
      const issued = this.csids.get(who.token)!;
      return this.issue(issued.spki, name([[OID.commonName, 'production']]), 'production', who.requestId);
    }
    if (req.method === 'PATCH' && req.path === '/production/csids') {
      if (who.kind !== 'production') return { status: 401, body: null };
      if (!this.validOtps.has(String(req.headers.otp ?? '')))
        return { status: 400, body: { code: 'Invalid-OTP', message: 'The provided OTP is invalid' } };
      const csr = this.csrParts(body?.csr);
      if (!csr) return { status: 400, body: { code: 'Invalid-CSR', message: 'The provided CSR is invalid' } };
      return this.issue(csr.spki, csr.subject, 'production', who.requestId);
    }
    if (req.method === 'POST' && req.path === '/invoices/reporting/single') {
      if (who.kind === 'compliance') return { status: 401, body: null };
      const { xml, errors } = this.validate(body, who.spki);
      const uuid = String(body?.uuid);
      const aimed = this.rejects.findIndex((r) => r === uuid || r === '*');
      if (aimed >= 0) {
        this.rejects.splice(aimed, 1);
        errors.push('BR-KSA-37: The seller address building number must contain 4 digits.');
      }
      if (errors.length)
        return {
          status: 400,
          body: { validationResults: this.results(errors, []), reportingStatus: 'NOT_REPORTED' },
        };
      const warnings =
        this.warns > 0
          ? ['BR-KSA-98: The simplified invoice should be submitted within 24 hours of issuing it.']
          : [];
      if (this.warns > 0) this.warns--;
      this.reported.push({ uuid, hash: String(body?.invoiceHash), xml });
      return {
        status: warnings.length ? 202 : 200,
        body: { validationResults: this.results([], warnings), reportingStatus: 'REPORTED' },
      };
    }
    return { status: 404, body: null };
  }
}
