import crypto from 'node:crypto';
import { hmacSha256, safeEqual } from '../../crypto';

/** The signed claim link of a delivered code key (the key replacement claims of ../fraud/claims.ts). */

/** What a claim link's signature is keyed with: derived, never the platform secret itself. */
function claimKey(appSecret: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', appSecret, 'commerce-platform', 'key-claim-link', 32));
}

export function claimToken(appSecret: string, productCodeId: number): string {
  const mac = hmacSha256(claimKey(appSecret), `key-claim:${productCodeId}`).slice(0, 32);
  return `${productCodeId}.${mac}`;
}

export function claimLink(publicBaseUrl: string, appSecret: string, productCodeId: number): string {
  return `${publicBaseUrl}/claims/new?t=${encodeURIComponent(claimToken(appSecret, productCodeId))}`;
}

/** The code key a claim token names, or null when the token is not one the platform signed. */
export function codeOfToken(secrets: readonly string[], token: string): number | null {
  const match = /^(\d{1,12})\.([0-9a-f]{32})$/.exec(token ?? '');
  if (!match) return null;
  const id = Number(match[1]);
  const ok = secrets.some((secret) => safeEqual(claimToken(secret, id), token));
  return ok ? id : null;
}
