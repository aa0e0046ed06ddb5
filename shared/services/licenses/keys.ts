import crypto from 'node:crypto';

/** Upper-case letters and digits without the look-alikes 0/O and 1/I, so a key read aloud or typed survives. */
export const LICENSE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** Used when a product has license generation on but no prefix of its own. */
export const DEFAULT_LICENSE_PREFIX = 'LIC';
export const LICENSE_KEY_PATTERN =
  /^[A-Z0-9]{1,20}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/;

/** The product's prefix as keys carry it: upper case, letters and digits only, at most 20 characters. */
export function licensePrefix(prefix: string | null | undefined): string {
  const cleaned = (prefix ?? '')
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 20);
  return cleaned === '' ? DEFAULT_LICENSE_PREFIX : cleaned;
}

/**
 * PREFIX-XXXX-XXXX-XXXX-XXXX: four groups of four characters drawn uniformly (crypto.randomInt, no modulo
 * bias) from a 32-character alphabet, 80 random bits. Uniqueness is the database's job (licenses.key is
 * unique); callers retry on the rare collision.
 */
export function generateLicenseKey(prefix: string | null | undefined): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g += 1) {
    let group = '';
    for (let i = 0; i < 4; i += 1) group += LICENSE_ALPHABET[crypto.randomInt(0, LICENSE_ALPHABET.length)];
    groups.push(group);
  }
  return `${licensePrefix(prefix)}-${groups.join('-')}`;
}
