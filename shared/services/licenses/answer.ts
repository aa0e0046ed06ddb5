import { sha256 } from '../../crypto';
import { encryptAnswer } from './seal';
import { signBody, type SigningKeys } from './signing';

/**
 * Turns a License API document (success or error, in the License envelope) into the bytes sent and their
 * signature (docs/license.md, "Answer binding, nonce, timestamp and signature"):
 * 1. the request it answers (`request`), the client's `nonce` (or null) and the server `timestamp` (Unix
 *    seconds) are added to the document, so a client refuses an answer to anyone else's request, and a
 *    replayed one;
 * 2. when the product encrypts its answers (`encryptionKey`), the document is encrypted whole (seal.ts);
 * 3. the exact body is signed with the platform's Ed25519 key (X-Signature), which is held in memory: no
 *    database read stands between an answer and its signature, so an outage is answered signed too.
 */
export interface SealedAnswer {
  body: string;
  signature: string;
  keyId: string;
  encrypted: boolean;
}

/** A client nonce: 1 to 128 visible ASCII characters. */
export const NONCE_PATTERN = /^[\x21-\x7E]{1,128}$/;

/**
 * The request an answer answers, as the operator contract (docs/operations.md) pins it: `product_id`,
 * the lowercase hex SHA-256 of the key exactly as sent, and the hwid as sent (null when none was).
 * A field that was absent or not of its type is null.
 */
export interface AnswerBinding {
  product_id: number | null;
  license_key_sha256: string | null;
  hwid: string | null;
}

const MAX_ID = 2_147_483_647;

/** The binding and the nonce of a request body as the client sent it (read before or after validation). */
export function bindingOf(body: unknown): { request: AnswerBinding; nonce: string | null } {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return { request: { product_id: null, license_key_sha256: null, hwid: null }, nonce: null };
  const { product_id: rawId, license_key: rawKey, hwid, nonce: rawNonce } = body as Record<string, unknown>;
  const id = typeof rawId === 'string' && /^\d{1,10}$/.test(rawId.trim()) ? Number(rawId) : rawId;
  const productId =
    Number.isInteger(id) && (id as number) > 0 && (id as number) <= MAX_ID ? (id as number) : null;
  const nonce = typeof rawNonce === 'string' && NONCE_PATTERN.test(rawNonce.trim()) ? rawNonce.trim() : null;
  return {
    request: {
      product_id: productId,
      license_key_sha256: typeof rawKey === 'string' ? sha256(rawKey) : null,
      hwid: typeof hwid === 'string' ? hwid : null,
    },
    nonce,
  };
}

export function sealLicenseAnswer(
  keys: SigningKeys,
  document: Record<string, unknown>,
  opts: { request: AnswerBinding; nonce: string | null; encryptionKey: Buffer | null; now?: Date },
): SealedAnswer {
  const stamped = {
    ...document,
    request: opts.request,
    nonce: opts.nonce,
    timestamp: Math.floor((opts.now ?? new Date()).getTime() / 1000),
  };
  const body = opts.encryptionKey
    ? JSON.stringify(encryptAnswer(opts.encryptionKey, JSON.stringify(stamped)))
    : JSON.stringify(stamped);
  return { body, signature: signBody(keys, body), keyId: keys.keyId, encrypted: opts.encryptionKey !== null };
}
