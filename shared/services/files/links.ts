import crypto from 'node:crypto';
import { safeEqual } from '../../crypto';

/**
 * Download addresses (docs/downloads.md): `{PUBLIC_BASE_URL}/downloads/{token}`, one per file and paid
 * order item. The token names the order item and the file and carries an HMAC of both under a key derived
 * from APP_SECRET, so an address cannot be forged or moved to another order item or file; it is checked in
 * constant time, and under APP_SECRET_PREVIOUS too so that addresses sent before a rotation keep working.
 */

export const DOWNLOAD_TOKEN = /^(\d{1,10})-(\d{1,10})-([A-Za-z0-9_-]{22})$/;

function mac(secret: string, orderItemId: number, fileId: number): string {
  const key = crypto.createHmac('sha256', secret).update('matjar:download-links').digest();
  return crypto
    .createHmac('sha256', key)
    .update(`${orderItemId}:${fileId}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

export function downloadToken(secret: string, orderItemId: number, fileId: number): string {
  return `${orderItemId}-${fileId}-${mac(secret, orderItemId, fileId)}`;
}

/** The order item and file a token names, or null for a token not signed by this platform. */
export function readDownloadToken(
  secrets: readonly string[],
  token: string,
): { orderItemId: number; fileId: number } | null {
  const match = DOWNLOAD_TOKEN.exec(token);
  if (!match) return null;
  const orderItemId = Number(match[1]);
  const fileId = Number(match[2]);
  const signed = secrets.some((secret) => safeEqual(mac(secret, orderItemId, fileId), match[3]!));
  return signed ? { orderItemId, fileId } : null;
}
