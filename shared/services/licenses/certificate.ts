import crypto from 'node:crypto';
import { sha256 } from '../../crypto';
import type { Entitlements } from './entitlements';
import { normalizeIp } from './identifiers';
import { heartbeat } from './seats';
import { signingKeys, type SigningKeys, type SigningKeysDeps } from './signing';
import { verifyLicense, type LicenseResult, type VerifyDeps, type VerifyRequest } from './verify';

/**
 * Offline license certificates (docs/license.md, "Offline certificates"): what POST /verify/certificate
 * answers. A JWS compact serialization (RFC 7515), `alg` EdDSA (Ed25519, RFC 8037) with the `kid` of the
 * platform key that signs every License answer (GET /verify/public-key), so a program checks it with the
 * published key and no network. Issued only to a request that /verify itself would answer with a result:
 * the same checks, the same activation of a new hwid, the same refusals.
 *
 * A certificate certifies only what the license activated: under an `ip` lock the activated address (`ip`)
 * and no machine (`hwid` null), under a `hwid` lock (or a floating seat) the machine. A floating license's
 * certificate names its seat (`seat`: id and generation) and leases it (seats.ts): the seat is not freed,
 * by a release or a silence, before the certificate ends.
 */

/** Longest validity of a certificate; never past the license's own expiry either. */
export const CERTIFICATE_MAX_DAYS = 30;
const DAY_S = 86_400;

export interface CertificateClaims {
  product_id: number;
  /** Lowercase hex SHA-256 of the license key exactly as sent (UTF-8). */
  license_key_sha256: string;
  /**
   * The machine certified: the hwid exactly as sent under a `hwid` lock or a floating seat; null under an
   * `ip` lock (the address is what was activated) and when none was sent.
   */
  hwid: string | null;
  /** Under an `ip` lock: the activated client address; null otherwise. */
  ip: string | null;
  /** A floating license's seat: its id and the generation this certificate holds; null otherwise. */
  seat: { id: number; generation: number } | null;
  /** `grace`: past the license's expiry, within the product's grace period (`exp` then ends with it). */
  status: LicenseResult['status'];
  lock_type: LicenseResult['lock_type'];
  /** Unix seconds. Never earlier than the license's `not_before`. */
  iat: number;
  /**
   * Unix seconds: at most 30 days (or the product's check-in days) after `iat`, and never after
   * `license_expires_at` (in grace: never after the grace period's end).
   */
  exp: number;
  /** The product's check-in period in days (0: none beyond the 30-day limit). */
  checkin_days: number;
  /** The license's expiry (Unix seconds); null for a lifetime license. */
  license_expires_at: number | null;
  /** The license's revocation epoch when issued: a later, larger one from /verify voids this certificate. */
  not_before: number;
  entitlements: Entitlements;
}

export interface IssuedCertificate {
  certificate: string;
  key_id: string;
  issued_at: string;
  expires_at: string;
  claims: CertificateClaims;
  license: LicenseResult;
}

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** Signs `claims` as a JWS compact serialization with the platform key. */
export function signCertificate(keys: SigningKeys, claims: CertificateClaims): string {
  const header = b64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: keys.keyId }));
  const payload = b64url(JSON.stringify(claims));
  const signature = crypto.sign(null, Buffer.from(`${header}.${payload}`, 'ascii'), keys.privateKey);
  return `${header}.${payload}.${b64url(signature)}`;
}

/** The claims of a license result, issued at `now`. */
export function certificateClaims(
  result: LicenseResult,
  bound: {
    productId: number;
    licenseKeyAsSent: string;
    hwidAsSent: string | null;
    ip: string;
    seat: CertificateClaims['seat'];
  },
  now: Date,
): CertificateClaims {
  const iat = Math.max(Math.floor(now.getTime() / 1000), result.not_before);
  const licenseExpiry = result.expires_at ? Math.floor(Date.parse(result.expires_at) / 1000) : null;
  const graceEnd = result.grace_ends_at ? Math.floor(Date.parse(result.grace_ends_at) / 1000) : null;
  const days =
    result.checkin_days > 0 ? Math.min(result.checkin_days, CERTIFICATE_MAX_DAYS) : CERTIFICATE_MAX_DAYS;
  const exp = Math.min(iat + days * DAY_S, graceEnd ?? licenseExpiry ?? Number.MAX_SAFE_INTEGER);
  // An ip-locked license activated an address, not a machine: its certificate names no machine. A floating
  // seat is always a machine's (seats.ts), whatever the lock.
  const ipLocked = result.lock_type === 'ip' && bound.seat === null;
  return {
    product_id: bound.productId,
    license_key_sha256: sha256(bound.licenseKeyAsSent),
    hwid: ipLocked ? null : bound.hwidAsSent,
    ip: ipLocked ? normalizeIp(bound.ip) : null,
    seat: bound.seat,
    status: result.status,
    lock_type: result.lock_type,
    iat,
    exp,
    checkin_days: result.checkin_days,
    license_expires_at: licenseExpiry,
    not_before: result.not_before,
    entitlements: result.entitlements,
  };
}

export async function issueCertificate(
  deps: VerifyDeps & SigningKeysDeps,
  req: VerifyRequest & { licenseKeyAsSent: string; hwidAsSent: string | null },
): Promise<IssuedCertificate> {
  const now = req.now ?? new Date();
  // A floating license's certificate is a seat lease: it takes (or keeps) the machine's seat as a heartbeat
  // does, and lasts no longer than the seat, so offline use cannot hold more machines than seats.
  const policy = await deps
    .knex('license_policies')
    .where({ product_id: req.productId, floating: true })
    .first<{ floating: boolean } | undefined>('floating');
  let license: LicenseResult;
  let seatEnd: number | null = null;
  let seatClaim: CertificateClaims['seat'] = null;
  if (policy) {
    // Minted only for a seat the machine holds now; the certificate takes the seat's next generation.
    const beat = await heartbeat(deps, { ...req, now, certify: true });
    const { seat, ...result } = beat;
    license = result;
    seatEnd = seat.expires_at ? Math.floor(Date.parse(seat.expires_at) / 1000) : null;
    seatClaim =
      seat.id !== null && seat.generation !== null ? { id: seat.id, generation: seat.generation } : null;
  } else {
    license = await verifyLicense(deps, { ...req, now });
  }
  const keys = await signingKeys(deps);
  const bound = certificateClaims(
    license,
    {
      productId: req.productId,
      licenseKeyAsSent: req.licenseKeyAsSent,
      hwidAsSent: req.hwidAsSent,
      ip: req.ip,
      seat: seatClaim,
    },
    now,
  );
  const claims = seatEnd === null ? bound : { ...bound, exp: Math.min(bound.exp, seatEnd) };
  return {
    certificate: signCertificate(keys, claims),
    key_id: keys.keyId,
    issued_at: new Date(claims.iat * 1000).toISOString(),
    expires_at: new Date(claims.exp * 1000).toISOString(),
    claims,
    license,
  };
}
