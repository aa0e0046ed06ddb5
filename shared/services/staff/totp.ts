import crypto from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP), as authenticator apps make them: HMAC-SHA-1,
 * 6 digits, a 30-second step. Short enough to own rather than depend on a package; checked against the
 * RFC's published SHA-1 test vectors (test/unit/totp.test.ts).
 */
export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Steps either side of now that are accepted: a phone clock a little off still works. */
export const TOTP_WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 block's natural key size (RFC 4226 recommends at least 128). */
export const TOTP_SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (what otpauth:// URIs and apps' "enter a key" fields take). */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Reads base32 (case, spaces and padding ignored); null for any other character. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=-]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 HOTP: HMAC-SHA-1 of the 8-byte counter, dynamic truncation, the last `digits` digits. */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = crypto.createHmac('sha1', secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The step a moment falls in (RFC 6238's T, with T0 = 0). */
export function totpStep(unixSeconds: number, stepSeconds = TOTP_STEP_SECONDS): number {
  return Math.floor(unixSeconds / stepSeconds);
}

/** The code of the moment `unixSeconds`. */
export function totpAt(secret: Buffer, unixSeconds: number, digits = TOTP_DIGITS): string {
  return hotp(secret, totpStep(unixSeconds), digits);
}

/**
 * The step whose code `code` is, within TOTP_WINDOW steps of `unixSeconds`, or null. Every candidate is
 * compared, in constant time, whichever matches: the answer's timing does not say which step was close.
 */
export function matchingStep(secret: Buffer, code: string, unixSeconds: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(unixSeconds);
  let found: number | null = null;
  for (let step = now - TOTP_WINDOW; step <= now + TOTP_WINDOW; step += 1) {
    const expected = Buffer.from(hotp(secret, step), 'utf8');
    if (crypto.timingSafeEqual(expected, Buffer.from(code, 'utf8')) && found === null) found = step;
  }
  return found;
}

export function newTotpSecret(): Buffer {
  return crypto.randomBytes(TOTP_SECRET_BYTES);
}

/** The otpauth:// URI an authenticator app reads from the QR code (the Key Uri Format apps share). */
export function otpauthUri(secretBase32: string, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
