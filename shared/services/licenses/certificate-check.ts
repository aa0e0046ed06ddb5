import crypto from 'node:crypto';
import { sha256 } from '../../crypto';
import type { CertificateClaims } from './certificate';
import { LicenseError } from './errors';
import { publishedKeys } from './key-rotation';
import type { CertificateView } from './seats';
import { signingKeys, type SigningDeps, type SigningKeysDeps } from './signing';

/**
 * A certificate handed back to the License API (a heartbeat's `certificate`): read only when it is one the
 * platform signed (a published key, by `kid`) for this product, key and machine; anything else is void.
 */
export async function readPresentedCertificate(
  deps: SigningDeps & SigningKeysDeps,
  token: string,
  bound: { productId: number; licenseKeyAsSent: string; hwidAsSent: string | null },
  now: Date,
): Promise<CertificateView> {
  const voided = new LicenseError('CERTIFICATE_VOID');
  const parts = token.split('.');
  if (parts.length !== 3) throw voided;
  const [h, p, s] = parts as [string, string, string];
  const header = jsonObject(h);
  const claims = jsonObject(p) as Partial<CertificateClaims> | null;
  if (!header || !claims || header.alg !== 'EdDSA' || typeof header.kid !== 'string') throw voided;
  const key = await publicKeyOf(deps, header.kid, now);
  if (!key) throw voided;
  let signed: boolean;
  try {
    signed = crypto.verify(null, Buffer.from(`${h}.${p}`, 'ascii'), key, Buffer.from(s, 'base64url'));
  } catch {
    signed = false;
  }
  if (
    !signed ||
    claims.product_id !== bound.productId ||
    claims.license_key_sha256 !== sha256(bound.licenseKeyAsSent) ||
    (claims.hwid ?? null) !== bound.hwidAsSent ||
    typeof claims.exp !== 'number' ||
    claims.exp <= Math.floor(now.getTime() / 1000)
  )
    throw voided;
  const seat = claims.seat as unknown;
  if (!seat || typeof seat !== 'object') return { seat: null };
  const { id, generation } = seat as { id?: unknown; generation?: unknown };
  return {
    seat:
      typeof id === 'number' &&
      Number.isInteger(id) &&
      typeof generation === 'number' &&
      Number.isInteger(generation)
        ? { id, generation }
        : null,
  };
}

/** The public key named `kid`: this process's signing key, else one still published (a rotated key). */
async function publicKeyOf(
  deps: SigningDeps & SigningKeysDeps,
  kid: string,
  now: Date,
): Promise<crypto.KeyObject | null> {
  const own = await signingKeys(deps);
  if (own.keyId === kid) return own.publicKey;
  const published = (await publishedKeys(deps, now)).find((k) => k.kid === kid);
  return published ? crypto.createPublicKey(published.public_key_pem) : null;
}

/** A base64url JSON object, or null for anything else. */
function jsonObject(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
