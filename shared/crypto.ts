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

/** Thrown when a sealed value opens under none of the platform's secrets (APP_SECRET, APP_SECRET_PREVIOUS). */
export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

interface SealKey {
  id: string;
  key: Buffer;
}

function sealKey(secret: string, purpose: string): SealKey {
  const key = Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', purpose, 32));
  // A short public fingerprint of the secret, from a key of its own: names which secret sealed a value
  // without revealing anything about the secret or the sealing key.
  const idKey = Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', `${purpose}:key-id`, 32));
  const id = crypto.createHmac('sha256', idKey).update('key-id').digest('base64url').slice(0, 11);
  return { id, key };
}

/**
 * AES-256-GCM with keys derived from the platform secrets (docs/security.md, "Rotating APP_SECRET").
 *
 * A value is sealed under the current secret (APP_SECRET) as `v2.<key id>.<base64url of iv(12) | tag(16) |
 * data>`, the key id (a fingerprint of the secret) bound in as associated data. It is opened with the key
 * its id names: the current secret or one of the previous ones (APP_SECRET_PREVIOUS). Values sealed before
 * key ids existed (`v1.`) are tried under each secret in turn.
 */
export class Cipher {
  private readonly current: SealKey;
  private readonly keys: readonly SealKey[];

  constructor(secret: string, previous: readonly string[] = [], purpose = 'at-rest') {
    this.current = sealKey(secret, purpose);
    const keys = [this.current];
    for (const old of previous) {
      const k = sealKey(old, purpose);
      if (!keys.some((known) => known.id === k.id)) keys.push(k);
    }
    this.keys = keys;
  }

  /** The id of the key new values are sealed under. */
  get keyId(): string {
    return this.current.id;
  }

  encrypt(plain: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(`v2.${this.current.id}`, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v2.${this.current.id}.` + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url');
  }

  decrypt(sealed: string): string {
    if (sealed.startsWith('v2.')) {
      const dot = sealed.indexOf('.', 3);
      const id = dot > 0 ? sealed.slice(3, dot) : '';
      const key = this.keys.find((k) => k.id === id);
      if (!key)
        throw new SealError(
          'a value was sealed under a secret that is neither APP_SECRET nor in APP_SECRET_PREVIOUS',
        );
      const opened = open(key.key, sealed.slice(dot + 1), `v2.${id}`);
      if (opened === null)
        throw new SealError('a sealed value does not open under APP_SECRET: it is damaged');
      return opened;
    }
    if (sealed.startsWith('v1.')) {
      for (const key of this.keys) {
        const opened = open(key.key, sealed.slice(3), null);
        if (opened !== null) return opened;
      }
      throw new SealError('a sealed value opens under neither APP_SECRET nor any of APP_SECRET_PREVIOUS');
    }
    throw new SealError('Unknown ciphertext version');
  }

  /** True when `sealed` is already sealed under the current secret (what secrets:rotate leaves alone). */
  isCurrent(sealed: string): boolean {
    return sealed.startsWith(`v2.${this.current.id}.`);
  }
}

function open(key: Buffer, body: string, aad: string | null): string | null {
  const raw = Buffer.from(body, 'base64url');
  if (raw.length < 28) return null;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    if (aad !== null) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
