import crypto from 'node:crypto';

/** SHA-256 hex digest: how high-entropy bearer secrets (tokens, checkout URLs) are kept at rest. */
export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value, 'utf8').digest('hex');
}

export function hmacSha256(key: string | Buffer, value: string): string {
  return crypto.createHmac('sha256', key).update(value, 'utf8').digest('hex');
}

/** Constant-time string comparison; unequal lengths compare as unequal without leaking where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    crypto.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}

/** An opaque secret of `bytes` random bytes (CSPRNG), base64url encoded, with an optional prefix. */
export function randomToken(bytes = 32, prefix = ''): string {
  return prefix + crypto.randomBytes(bytes).toString('base64url');
}

/** A uniformly random string of decimal digits (no modulo bias). */
export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += String(crypto.randomInt(0, 10));
  return out;
}

/**
 * AES-256-GCM with a key derived from the platform secret. Output: base64url of iv(12) | tag(16) | data,
 * prefixed with a version so the scheme can change later.
 */
export class Cipher {
  private readonly key: Buffer;

  constructor(secret: string, purpose = 'at-rest') {
    this.key = Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', purpose, 32));
  }

  encrypt(plain: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return 'v1.' + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
  }

  decrypt(sealed: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('Unknown ciphertext version');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
