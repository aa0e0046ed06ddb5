import crypto from 'node:crypto';
import { CERTIFICATE_MAX_DAYS } from './certificate';
import type { SigningDeps } from './signing';

/**
 * Rotation of the platform's license signing key. The current key stays in platform_settings
 * (`license_signing_key`, sealed); a rotation moves its PUBLIC half to `license_signing_keys_retired` with the
 * moment it was retired, and puts a fresh key in its place. GET /verify/public-key lists the current key and
 * every retired key whose certificates may still be valid: a certificate lasts at most CERTIFICATE_MAX_DAYS,
 * so a retired key is listed for that long after its rotation, plus a day for processes that were still
 * signing with it until they restarted.
 */
const CURRENT = 'license_signing_key';
const RETIRED = 'license_signing_keys_retired';
const KEEP_MS = (CERTIFICATE_MAX_DAYS + 1) * 86_400_000;

export interface PublishedKey {
  kid: string;
  algorithm: 'Ed25519';
  public_key: string;
  public_key_pem: string;
  jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
  /** ISO 8601 when the key was retired; null for the current key. */
  retired_at: string | null;
}

interface RetiredKey {
  kid: string;
  public_key_pem: string;
  retired_at: string;
}

function describePublic(publicKey: crypto.KeyObject, retiredAt: string | null): PublishedKey {
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const kid = crypto.createHash('sha256').update(raw).digest('hex').slice(0, 16);
  return {
    kid,
    algorithm: 'Ed25519',
    public_key: raw.toString('base64'),
    public_key_pem: String(publicKey.export({ format: 'pem', type: 'spki' })),
    jwk: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url'), kid, alg: 'EdDSA', use: 'sig' },
    retired_at: retiredAt,
  };
}

function parseRetired(value: unknown): RetiredKey[] {
  if (typeof value !== 'string') return [];
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? (list as RetiredKey[]) : [];
  } catch {
    return [];
  }
}

/**
 * Every key whose signatures are valid, the current first (read from the database, so a process that still
 * signs with a key it loaded before a rotation publishes the new key too).
 */
export async function publishedKeys(deps: SigningDeps, now: Date = new Date()): Promise<PublishedKey[]> {
  const rows = await deps.knex('platform_settings').whereIn('key', [CURRENT, RETIRED]).select('key', 'value');
  const current = rows.find((r: { key: string }) => r.key === CURRENT) as { value: string } | undefined;
  const retired = parseRetired(
    (rows.find((r: { key: string }) => r.key === RETIRED) as { value?: string })?.value,
  );
  const keys: PublishedKey[] = [];
  if (current) {
    const privateKey = crypto.createPrivateKey(deps.cipher.decrypt(String(current.value)));
    keys.push(describePublic(crypto.createPublicKey(privateKey), null));
  }
  for (const key of retired) {
    if (Date.parse(key.retired_at) + KEEP_MS <= now.getTime()) continue;
    if (keys.some((k) => k.kid === key.kid)) continue;
    keys.push(describePublic(crypto.createPublicKey(key.public_key_pem), key.retired_at));
  }
  return keys;
}

/**
 * Replaces the signing key with a fresh one; the old public key stays published while its certificates may
 * be valid. Web processes sign with the key they loaded at start: restart them after a rotation.
 */
export async function rotateSigningKey(
  deps: SigningDeps,
  now: Date = new Date(),
): Promise<{ retired: string | null; current: string }> {
  return deps.knex.transaction(async (trx) => {
    const row = (await trx('platform_settings').where({ key: CURRENT }).forUpdate().first('value')) as
      { value: string } | undefined;
    const retiredRow = (await trx('platform_settings').where({ key: RETIRED }).forUpdate().first('value')) as
      { value: string } | undefined;
    const fresh = crypto.generateKeyPairSync('ed25519').privateKey;
    const sealed = deps.cipher.encrypt(String(fresh.export({ format: 'pem', type: 'pkcs8' })));
    const retired = parseRetired(retiredRow?.value).filter(
      (k) => Date.parse(k.retired_at) + KEEP_MS > now.getTime(),
    );
    let retiredKid: string | null = null;
    if (row) {
      const old = describePublic(
        crypto.createPublicKey(crypto.createPrivateKey(deps.cipher.decrypt(row.value))),
        null,
      );
      retiredKid = old.kid;
      retired.unshift({ kid: old.kid, public_key_pem: old.public_key_pem, retired_at: now.toISOString() });
    }
    await trx('platform_settings')
      .insert({ key: CURRENT, value: sealed })
      .onConflict('key')
      .merge({ value: sealed });
    await trx('platform_settings')
      .insert({ key: RETIRED, value: JSON.stringify(retired) })
      .onConflict('key')
      .merge({ value: JSON.stringify(retired) });
    return { retired: retiredKid, current: describePublic(crypto.createPublicKey(fresh), null).kid };
  });
}
