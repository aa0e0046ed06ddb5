import type { Cipher } from '../crypto';
import { HostedProviderId, ProviderCredentials, ProviderRejectedError } from './types';

/**
 * A store's provider credentials, kept AES-256-GCM encrypted in store_payment_methods.credentials_encrypted
 * as JSON ({secret_key, webhook_secret} for Moyasar, {api_key, webhook_secret} for Coinbase). Decrypted
 * values live only in memory for the call that needs them and are never logged: this module returns them
 * and nothing else.
 */
export function decryptCredentials(cipher: Cipher, sealed: string | null): ProviderCredentials {
  if (!sealed) return {};
  const parsed: unknown = JSON.parse(cipher.decrypt(sealed));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = value;
  }
  return Object.freeze(out);
}

export function encryptCredentials(cipher: Cipher, credentials: Record<string, string>): string {
  return cipher.encrypt(JSON.stringify(credentials));
}

/** One credential a provider call cannot go without; a store that has not configured it is refused. */
export function requiredCredential(
  credentials: ProviderCredentials,
  provider: HostedProviderId,
  key: string,
): string {
  const value = credentials[key];
  if (!value) throw new ProviderRejectedError(provider, `the store has no ${key} configured`);
  return value;
}
