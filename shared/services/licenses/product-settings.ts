import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import type { LockType } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { HotCaches } from '../../cache/versioned';
import { noteLicenseProductChanged, readStamp, type LicenseCacheDeps } from './cache';

/** What answering a product's verify needs besides the license: whether and with which key to encrypt. */
export interface ProductAnswerSettings {
  productId: number;
  /** The AES-256-GCM key when the product encrypts its answers; null otherwise. */
  encryptionKey: Buffer | null;
}

export interface ProductSettingsDeps extends LicenseCacheDeps {
  knex: Knex;
  cipher: Cipher;
  /** This process's hot-read caches (createDeps). */
  caches: HotCaches;
}

/** 32 random bytes, base64: the form the seed command and the merchant's product detail use. */
function freshKey(cipher: Cipher): string {
  return cipher.encrypt(crypto.randomBytes(32).toString('base64'));
}

function openKey(cipher: Cipher, sealed: string): Buffer {
  const key = Buffer.from(cipher.decrypt(sealed), 'base64');
  if (key.length !== 32) throw new Error('license encryption key is not 32 bytes');
  return key;
}

/**
 * The product's sealed key, made (once, by a conditional UPDATE) when encryption is on and none exists yet,
 * e.g. a product whose merchant just turned encryption on.
 */
async function ensureSealedKey(
  deps: ProductSettingsDeps,
  productId: number,
  current: string | null,
): Promise<string> {
  if (current) return current;
  await deps
    .knex('products')
    .where({ id: productId })
    .whereNull('license_secret_encrypted')
    .update({ license_secret_encrypted: freshKey(deps.cipher) });
  const row = await deps.knex('products').where({ id: productId }).first('license_secret_encrypted');
  return String(row.license_secret_encrypted);
}

async function loadAnswerSettings(
  deps: ProductSettingsDeps,
  productId: number,
): Promise<ProductAnswerSettings | null> {
  const row = await deps
    .knex('products')
    .where({ id: productId })
    .first<{ license_encrypt: boolean; license_secret_encrypted: string | null } | undefined>(
      'license_encrypt',
      'license_secret_encrypted',
    );
  if (!row) return null;
  if (!row.license_encrypt) return { productId, encryptionKey: null };
  const sealed = await ensureSealedKey(deps, productId, row.license_secret_encrypted);
  return { productId, encryptionKey: openKey(deps.cipher, sealed) };
}

/**
 * How verify answers for this product are sent; null for a product that does not exist. Cached per process
 * under the product's counter (and the TTL), so a repeated verify reads no product row.
 */
export async function productAnswerSettings(
  deps: ProductSettingsDeps,
  productId: number,
): Promise<ProductAnswerSettings | null> {
  const cache = deps.caches.of<ProductAnswerSettings>('license-answer-settings');
  const stamp = await readStamp(deps, { productId }).catch(() => null);
  const cached = stamp === null ? undefined : cache.get(String(productId), stamp);
  if (cached) return cached;
  const loaded = await loadAnswerSettings(deps, productId);
  if (loaded && stamp !== null) cache.set(String(productId), stamp, loaded);
  return loaded;
}

/** A product's license settings as the merchant's product detail shows them (key readable by the merchant). */
export interface MerchantLicenseSettings {
  enabled: boolean;
  prefix: string | null;
  lock_type: LockType;
  /** 0: unlimited. */
  max_activations: number;
  encrypt: boolean;
  /** The product's AES-256-GCM key (32 bytes, base64) when `encrypt` is on; null otherwise. */
  encryption_key: string | null;
}

/**
 * For the Merchant API's product detail: the product's license settings with its encryption key in clear,
 * made on first read when encryption is on and no key exists yet. `storeId` scopes the lookup; a product of
 * another store is not found.
 */
export async function licenseSettingsForMerchant(
  deps: ProductSettingsDeps,
  storeId: number,
  productId: number,
): Promise<MerchantLicenseSettings> {
  const row = await deps.knex('products').where({ id: productId, store_id: storeId }).first<
    | {
        license_enabled: boolean;
        license_prefix: string | null;
        license_lock_type: LockType | null;
        license_max_activations: number;
        license_encrypt: boolean;
        license_secret_encrypted: string | null;
      }
    | undefined
  >('license_enabled', 'license_prefix', 'license_lock_type', 'license_max_activations', 'license_encrypt', 'license_secret_encrypted');
  if (!row) throw new NotFoundError('Product not found');
  let encryptionKey: string | null = null;
  if (row.license_encrypt) {
    const sealed = await ensureSealedKey(deps, productId, row.license_secret_encrypted);
    encryptionKey = openKey(deps.cipher, sealed).toString('base64');
    if (!row.license_secret_encrypted) await noteLicenseProductChanged(deps, productId);
  }
  return {
    enabled: row.license_enabled,
    prefix: row.license_prefix,
    lock_type: row.license_lock_type ?? 'none',
    max_activations: row.license_max_activations,
    encrypt: row.license_encrypt,
    encryption_key: encryptionKey,
  };
}
