import { encryptAnswer } from './seal';
import { productAnswerSettings, type ProductSettingsDeps } from './product-settings';
import { signBody, signingKeys, type SigningDeps } from './signing';

/**
 * Turns a License API document (success or error, in the License envelope) into the bytes sent and their
 * signature (docs/license.md):
 * 1. the client's `nonce` (or null) and the server `timestamp` (Unix seconds) are added to the document;
 * 2. when the request's product encrypts its answers, the document is encrypted whole (seal.ts);
 * 3. the exact body is signed with the platform's Ed25519 key (X-Signature).
 * A 429 is `{"message"}` only, as the spec pins it: signed, never encrypted (it is decided before the
 * request is read, and costs no database read).
 */
export interface SealedAnswer {
  body: string;
  signature: string;
  keyId: string;
  encrypted: boolean;
}

/** A client nonce: 1 to 128 visible ASCII characters. */
export const NONCE_PATTERN = /^[\x21-\x7E]{1,128}$/;

export async function sealLicenseAnswer(
  deps: ProductSettingsDeps & SigningDeps,
  document: Record<string, unknown>,
  opts: { productId: number | null; nonce: string | null; rateLimited: boolean; now?: Date },
): Promise<SealedAnswer> {
  const keys = await signingKeys(deps);
  let body: string;
  let encrypted = false;
  if (opts.rateLimited) {
    body = JSON.stringify(document);
  } else {
    const stamped = {
      ...document,
      nonce: opts.nonce,
      timestamp: Math.floor((opts.now ?? new Date()).getTime() / 1000),
    };
    const settings = opts.productId === null ? null : await productAnswerSettings(deps, opts.productId);
    if (settings?.encryptionKey) {
      body = JSON.stringify(encryptAnswer(settings.encryptionKey, JSON.stringify(stamped)));
      encrypted = true;
    } else {
      body = JSON.stringify(stamped);
    }
  }
  return { body, signature: signBody(keys, body), keyId: keys.keyId, encrypted };
}
