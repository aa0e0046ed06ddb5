import crypto from 'node:crypto';
import { sha256 } from '../../crypto';
import type { CertificateClaims } from './certificate';
import { LicenseError } from './errors';
import { publishedKeys } from './key-rotation';
import type { CertificateView } from './seats';
import type { SigningDeps } from './signing';

/**
 * A certificate handed back to the License API (a heartbeat's `certificate`): read only when it is one the
 * platform signed (a published key, by `kid`) for this product, key and machine; anything else is void.
 */
export async function readPresentedCertificate(
  deps: SigningDeps,
  token: string,
  bound: { productId: number; licenseKeyAsSent: string; hwidAsSent: string | null },
  now: Date,
): Promise<CertificateView> {
  const parts = token.split('.');
  const voided = new LicenseError('CERTIFICATE_VOID');
  if (parts.length !== 3) throw voided;
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  let claims: Partial<CertificateClaims>;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
    claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Partial<CertificateClaims>;
  } catch {
    throw voided;
  }
  if (header.alg !== 'EdDSA' || typeof header.kid !== 'string' || !claims || typeof claims !== 'object')
    throw voided;
  const key = (await publishedKeys(deps, now)).find((k) => k.kid === header.kid);
  if (!key) throw voided;
  const signed = crypto.verify(
    null,
    Buffer.from(`${h}.${p}`, 'ascii'),
    crypto.createPublicKey(key.public_key_pem),
    Buffer.from(s, 'base64url'),
  );
  if (
    !signed ||
    claims.product_id !== bound.productId ||
    claims.license_key_sha256 !== sha256(bound.licenseKeyAsSent) ||
    (claims.hwid ?? null) !== bound.hwidAsSent ||
    typeof claims.exp !== 'number' ||
    claims.exp <= Math.floor(now.getTime() / 1000)
  )
    throw voided;
  const seat = claims.seat;
  const valid =
    seat && typeof seat === 'object' && Number.isInteger(seat.id) && Number.isInteger(seat.generation);
  return { seat: valid ? { id: seat.id, generation: seat.generation } : null };
}
