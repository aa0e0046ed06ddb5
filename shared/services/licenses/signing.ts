import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';

/**
 * The platform's Ed25519 key pair that signs every License API answer. Made once, on first use, and kept in
 * platform_settings with the private key sealed by the at-rest cipher, so every process of a deployment
 * signs with the same key and a client pins one public key (published at GET /verify/public-key).
 */
export interface SigningKeys {
  privateKey: crypto.KeyObject;
  publicKey: crypto.KeyObject;
  /** The raw 32-byte public key, base64. */
  publicKeyBase64: string;
  publicKeyPem: string;
  /** First 16 hex digits of SHA-256 over the raw public key: names the key if it is ever rotated. */
  keyId: string;
}

const SETTING = 'license_signing_key';

export interface SigningDeps {
  knex: Knex;
  cipher: Cipher;
}

function describe(privateKey: crypto.KeyObject): SigningKeys {
  const publicKey = crypto.createPublicKey(privateKey);
  // SPKI DER of an Ed25519 key is a fixed 12-byte header followed by the raw 32-byte key.
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    privateKey,
    publicKey,
    publicKeyBase64: raw.toString('base64'),
    publicKeyPem: String(publicKey.export({ format: 'pem', type: 'spki' })),
    keyId: crypto.createHash('sha256').update(raw).digest('hex').slice(0, 16),
  };
}

async function load(deps: SigningDeps): Promise<SigningKeys> {
  const fresh = crypto.generateKeyPairSync('ed25519').privateKey;
  const pem = String(fresh.export({ format: 'pem', type: 'pkcs8' }));
  // Two processes starting at once: the first insert wins and both read it back.
  await deps
    .knex('platform_settings')
    .insert({ key: SETTING, value: deps.cipher.encrypt(pem) })
    .onConflict('key')
    .ignore();
  const row = await deps.knex('platform_settings').where({ key: SETTING }).first('value');
  return describe(crypto.createPrivateKey(deps.cipher.decrypt(String(row.value))));
}

/**
 * The key pair of one process: read (or made) on first use, then kept. Built once with the process's
 * wiring (createDeps: `deps.services.licenseSigning`); a failed read is tried again at the next use.
 */
export class SigningKeyStore {
  private keys: Promise<SigningKeys> | null = null;

  constructor(private readonly deps: SigningDeps) {}

  get(): Promise<SigningKeys> {
    if (!this.keys) {
      const loading = load(this.deps);
      this.keys = loading;
      loading.catch(() => {
        if (this.keys === loading) this.keys = null;
      });
    }
    return this.keys;
  }
}

export interface SigningKeysDeps {
  services: { licenseSigning: SigningKeyStore };
}

/** The process's key pair (`deps.services.licenseSigning`). */
export function signingKeys(deps: SigningKeysDeps): Promise<SigningKeys> {
  return deps.services.licenseSigning.get();
}

/** Ed25519 signature (base64) over the exact bytes sent. */
export function signBody(keys: SigningKeys, body: string): string {
  return crypto.sign(null, Buffer.from(body, 'utf8'), keys.privateKey).toString('base64');
}
