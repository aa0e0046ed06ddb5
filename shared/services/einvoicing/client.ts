/**
 * ZATCA's e-invoicing API (the Fatoora developer portal's "Reporting / Compliance / Onboarding API"
 * description, version V2), at ZATCA_API_URL: the compliance CSID (POST /compliance, OTP header), the
 * compliance checks (POST /compliance/invoices), the production CSID (POST /production/csids) and its
 * renewal (PATCH /production/csids, OTP header), and single reporting (POST /invoices/reporting/single).
 * Every call sends `Accept-Version: V2`; the authenticated ones HTTP Basic with the CSID's
 * binarySecurityToken as user and its secret as password.
 */

export interface ZatcaAnswer {
  status: number;
  body: Record<string, unknown> | null;
}

/** What reaching ZATCA failed with: no answer at all (connection refused, timeout). */
export class ZatcaUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZatcaUnreachable';
  }
}

export interface Csid {
  /** base64 of the certificate's base64 DER, as ZATCA hands it out. */
  binarySecurityToken: string;
  secret: string;
}

export const ZATCA_TIMEOUT_MS = 15_000;

export function basicAuth(csid: Csid): string {
  return `Basic ${Buffer.from(`${csid.binarySecurityToken}:${csid.secret}`, 'utf8').toString('base64')}`;
}

/** The binarySecurityToken of a certificate kept as base64 DER. */
export function securityToken(certificateBase64: string): string {
  return Buffer.from(certificateBase64, 'utf8').toString('base64');
}

/** The certificate (base64 DER) inside a binarySecurityToken. */
export function certificateFromToken(token: string): string {
  return Buffer.from(token, 'base64').toString('utf8').replace(/\s+/g, '');
}

export async function callZatca(
  baseUrl: string,
  method: 'POST' | 'PATCH',
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<ZatcaAnswer> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        'Accept-Version': 'V2',
        'Accept-Language': 'en',
        'Content-Type': 'application/json',
        Accept: 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ZATCA_TIMEOUT_MS),
    });
  } catch (err) {
    throw new ZatcaUnreachable(`ZATCA could not be reached: ${(err as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  return { status: res.status, body: parseObject(text) };
}

/** A JSON object answer; null for an empty, non-JSON or non-object body. */
function parseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = text ? JSON.parse(text) : null;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export interface ZatcaMessage {
  type?: string;
  code?: string;
  category?: string;
  message?: string;
  status?: string;
}

/** validationResults' messages of one kind (warningMessages, errorMessages), as ZATCA sent them. */
export function messages(
  body: Record<string, unknown> | null,
  kind: 'warningMessages' | 'errorMessages',
): ZatcaMessage[] {
  const results = body?.validationResults as Record<string, unknown> | undefined;
  const list = results?.[kind];
  if (!Array.isArray(list)) return [];
  return list.slice(0, 50).map((m: Record<string, unknown>) => ({
    type: m.type === undefined ? undefined : String(m.type).slice(0, 40),
    code: m.code === undefined ? undefined : String(m.code).slice(0, 100),
    category: m.category === undefined ? undefined : String(m.category).slice(0, 100),
    message: m.message === undefined ? undefined : String(m.message).slice(0, 1000),
    status: m.status === undefined ? undefined : String(m.status).slice(0, 40),
  }));
}
