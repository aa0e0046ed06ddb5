import { growthSettingsOf, type GrowthSettings, writeGrowthSettings } from '../growth/settings';
import Joi from 'joi';
import type { Knex } from 'knex';
import { PAYMENT_METHOD_IDS, type PaymentMethodId, type Store } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { randomToken } from '../../crypto';
import { FieldErrors, messagesOf, ValidationError } from '../../errors';
import { formatMoney, parseMoney, precisionMessage } from '../../money';
import { decryptCredentials, encryptCredentials } from '../../providers/credentials';
import {
  CREDENTIAL_KEYS,
  type GatewayMethodFixture,
  type GatewayProvider,
  type PaymentMethodsPatch,
  REQUIRED_CREDENTIAL,
} from '../catalogue/store-schema';
import type { TxDeps } from '../../unit-of-work';
import { noteStoreChangedOn } from '../catalogue/cache';
import { type Actor, type Changes, recordAudit, SECRET } from '../audit';
import {
  domainsError,
  type PendingDomainView,
  platformHostOf,
  storeDomainLists,
  TAKEN_MESSAGE,
  writeDomains,
} from './domains';
import {
  fraudSettingsOf,
  type FraudSettingsPatch,
  fraudSettingsView,
  type FraudSettingsView,
  writeFraudSettings,
} from '../fraud/settings';

/**
 * The store's settings as its owner manages them through the Merchant API: name, locale, currency (only
 * while the store has no orders), allowed origins, storefront domains, blocked phones, payment methods
 * with their provider credentials, and the embed key.
 *
 * Credentials are write-only: sealed with the platform cipher as they arrive, and shown back only as
 * `"set"` per key. Every change is one transaction with its audit row; the store lookups by embed key and
 * host (catalogue/store-cache.ts) are told after commit by the Merchant guard, so a rotated embed key is
 * refused by the next request on every process.
 */

/** A store's support address (the Reply-To of its e-mails): what the Merchant API and the dashboard accept. */
export const supportEmailSchema = Joi.string().trim().lowercase().max(254).email({ tlds: false });

export interface StoreSettingsPatch {
  name?: string;
  locale?: 'ar' | 'en';
  /** The Reply-To of the store's e-mails to buyers (docs/email.md); null removes it. */
  support_email?: string | null;
  currency?: string;
  allowed_origins?: string[];
  domains?: string[];
  blocked_phones?: { country_code: string; phone: string; reason?: string }[];
  payment_methods?: PaymentMethodsPatch;
  /** Store settings by key: fraud controls (docs/fraud.md) and growth (docs/growth.md). */
  settings?: GrowthSettings & FraudSettingsPatch;
  // Store pages (docs/store-pages.md): the page address and what the pages show.
  slug?: string;
  description?: string | null;
  logo_url?: string | null;
  accent_color?: string | null;
  policies?: string | null;
}

export interface PaymentMethodView {
  method: string;
  provider: string;
  active: boolean;
  min_amount: string | null;
  max_amount: string | null;
  /** What buyers are shown: PayPal address or link, bank details. */
  settings: Record<string, unknown>;
  /** Each credential key configured, as `"set"`; the values never leave the database. */
  credentials: Record<string, string>;
}

export interface StoreSettingsView {
  id: number;
  name: string;
  currency: string;
  /** What the write side accepts (api/merchant/store/routes.ts): the column holds nothing else. */
  locale: 'ar' | 'en';
  support_email: string | null;
  plan: Store['plan'];
  embed_key: string;
  allowed_origins: string[];
  /** Verified domains: the ones that pick the store for Storefront requests. */
  domains: string[];
  /** Domains added and not yet proven, each with the DNS TXT record that proves it (domains.ts). */
  pending_domains: PendingDomainView[];
  blocked_phones: { country_code: string; phone: string; reason: string | null }[];
  payment_methods: PaymentMethodView[];
  tax: { mode: Store['tax_mode']; rate: string };
  /** Fraud controls (docs/fraud.md) and growth (docs/growth.md). */
  settings: Required<GrowthSettings> & FraudSettingsView;
  created_at: string;
  // Store pages (docs/store-pages.md).
  slug: string;
  description: string | null;
  logo_url: string | null;
  accent_color: string | null;
  policies: string | null;
}

type MethodRow = {
  id: number;
  method: PaymentMethodId;
  provider: string;
  active: boolean;
  settings: Record<string, unknown>;
  min_amount_minor: string | number | null;
  max_amount_minor: string | number | null;
  credentials_encrypted: string | null;
};

function credentialKeys(cipher: Cipher, sealed: string | null): Record<string, string> {
  try {
    return Object.fromEntries(Object.keys(decryptCredentials(cipher, sealed)).map((k) => [k, SECRET]));
  } catch {
    // Sealed under another platform secret: unreadable, so shown as set without naming keys.
    return sealed ? { sealed: SECRET } : {};
  }
}

const money = (v: string | number | null, currency: string): string | null =>
  v == null ? null : formatMoney(Number(v), currency);

export async function storeSettings(
  deps: { knex: Knex; cipher: Cipher },
  storeId: number,
): Promise<StoreSettingsView> {
  const { knex } = deps;
  const [store, domains, methods, blocked, fraud] = await Promise.all([
    knex('stores').where('id', storeId).first(),
    storeDomainLists(knex, storeId),
    knex('store_payment_methods').where('store_id', storeId).orderBy(['position', 'id']) as Promise<
      MethodRow[]
    >,
    knex('blocked_phones').where('store_id', storeId).orderBy('id'),
    fraudSettingsOf(knex, storeId),
  ]);
  return {
    id: Number(store.id),
    name: store.name,
    currency: store.currency,
    locale: store.locale,
    support_email: (store.support_email as string | null) ?? null,
    plan: store.plan,
    embed_key: store.embed_key,
    allowed_origins: store.allowed_origins ?? [],
    slug: store.slug,
    description: store.page_description ?? null,
    logo_url: store.logo_url ?? null,
    accent_color: store.accent_color ?? null,
    policies: store.policies ?? null,
    domains: domains.domains,
    pending_domains: domains.pending_domains,
    blocked_phones: blocked.map((b: Record<string, unknown>) => ({
      country_code: String(b.country_code),
      phone: String(b.phone),
      reason: (b.reason as string | null) ?? null,
    })),
    payment_methods: methods.map((m) => ({
      method: m.method,
      provider: m.provider,
      active: m.active,
      min_amount: money(m.min_amount_minor, store.currency),
      max_amount: money(m.max_amount_minor, store.currency),
      settings: m.settings ?? {},
      credentials: credentialKeys(deps.cipher, m.credentials_encrypted),
    })),
    // Basis points as a percentage string: 1500 -> "15.00".
    tax: { mode: store.tax_mode, rate: formatMoney(Number(store.tax_rate_bp)) },
    settings: { ...growthSettingsOf(store), ...fraudSettingsView(fraud, store.currency) },
    created_at: new Date(store.created_at).toISOString(),
  };
}

/**
 * A method's bound in minor units of the store's currency (ISO 4217 decimals); the caller has refused an
 * amount with more decimals than that, so nothing here is read with another currency's exponent.
 */
const optionalMinor = (v: string | undefined, currency: string): number | null =>
  v === undefined ? null : (parseMoney(v, currency) ?? 0);

/**
 * Writes the payment methods named in `patch`, their bounds read in `currency` (the store's, or the one
 * the same patch sets); answers the audit's changes (credentials as "set").
 */
async function writePaymentMethods(
  trx: Knex,
  cipher: Cipher,
  storeId: number,
  currency: string,
  patch: PaymentMethodsPatch,
): Promise<Changes> {
  const errors: FieldErrors = {};
  const changes: Changes = {};
  const rows = (await trx('store_payment_methods').where('store_id', storeId)) as MethodRow[];
  for (const method of PAYMENT_METHOD_IDS) {
    if (!(method in patch)) continue;
    const given = patch[method as keyof PaymentMethodsPatch];
    const row = rows.find((r) => r.method === method);
    const at = `payment_methods.${method}`;
    if (given === null || given === undefined) {
      if (row) {
        await trx('store_payment_methods').where('id', row.id).delete();
        changes[at] = { from: row.provider, to: null };
      }
      continue;
    }
    const precise = (['min_amount', 'max_amount'] as const).every((key) => {
      const value = given[key];
      if (value === undefined || parseMoney(value, currency) !== null) return true;
      messagesOf(errors, `${at}.${key}`).push(precisionMessage(currency));
      return false;
    });
    if (precise && given.min_amount !== undefined && given.max_amount !== undefined) {
      if ((parseMoney(given.max_amount, currency) ?? 0) < (parseMoney(given.min_amount, currency) ?? 0)) {
        messagesOf(errors, `${at}.max_amount`).push('must not be below min_amount');
      }
    }
    let provider: string;
    let settings: Record<string, string> = {};
    let credentials: Record<string, string> | null = null;
    if (method === 'paypal' || method === 'bank') {
      provider = method;
      const {
        active: _a,
        min_amount: _min,
        max_amount: _max,
        ...rest
      } = given as unknown as Record<string, unknown>;
      settings = rest as Record<string, string>;
    } else {
      const gateway = given as GatewayMethodFixture;
      provider = gateway.provider;
      const sent: Record<string, string> = {};
      for (const key of CREDENTIAL_KEYS) if (gateway[key] !== undefined) sent[key] = gateway[key]!;
      // Write-only: credentials left out are kept while the provider stays the same.
      let stored: Record<string, string> = {};
      if (row && row.provider === provider) {
        try {
          stored = { ...decryptCredentials(cipher, row.credentials_encrypted) };
        } catch {
          stored = {};
        }
      }
      const merged = { ...stored, ...sent };
      const required = REQUIRED_CREDENTIAL[provider as GatewayProvider];
      if (required && !merged[required]) {
        messagesOf(errors, `${at}.${required}`).push(`is required for the ${provider} provider`);
      }
      credentials = Object.keys(merged).length > 0 ? merged : null;
      if (Object.keys(sent).length > 0) {
        changes[`${at}.credentials`] = {
          from: null,
          to: Object.fromEntries(Object.keys(sent).map((k) => [k, SECRET])),
        };
      }
    }
    const values = {
      provider,
      active: given.active,
      settings: JSON.stringify(settings),
      min_amount_minor: optionalMinor(given.min_amount, currency),
      max_amount_minor: optionalMinor(given.max_amount, currency),
      credentials_encrypted: credentials ? encryptCredentials(cipher, credentials) : null,
      updated_at: trx.fn.now(),
    };
    if (row) await trx('store_payment_methods').where('id', row.id).update(values);
    else {
      await trx('store_payment_methods').insert({
        ...values,
        store_id: storeId,
        method,
        position: PAYMENT_METHOD_IDS.indexOf(method),
      });
    }
    changes[at] = {
      from: row ? { provider: row.provider, active: row.active, settings: row.settings } : null,
      to: { provider, active: given.active, settings },
    };
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return changes;
}

async function writeBlockedPhones(
  trx: Knex,
  storeId: number,
  phones: NonNullable<StoreSettingsPatch['blocked_phones']>,
): Promise<void> {
  await trx('blocked_phones').where('store_id', storeId).delete();
  const unique = new Map(phones.map((p) => [p.country_code + p.phone, p]));
  if (unique.size > 0) {
    await trx('blocked_phones').insert(
      [...unique.entries()].map(([e164, p]) => ({
        store_id: storeId,
        country_code: p.country_code,
        phone: p.phone,
        e164,
        reason: p.reason ?? null,
      })),
    );
  }
}

const UNIQUE_VIOLATION = '23505';
const SLUG_TAKEN = 'is already the address of another store';
const STORE_PAGE_COLUMNS = [
  ['slug', 'slug'],
  ['description', 'page_description'],
  ['logo_url', 'logo_url'],
  ['accent_color', 'accent_color'],
  ['policies', 'policies'],
] as const;

export async function updateStoreSettings(
  deps: TxDeps & { knex: Knex; cipher: Cipher; config: { publicBaseUrl: string } },
  actor: Actor,
  storeId: number,
  patch: StoreSettingsPatch,
): Promise<StoreSettingsView> {
  await deps
    .tx(async (uow) => {
      const { trx } = uow;
      const store = await trx('stores').where('id', storeId).forUpdate().first();
      const changes: Changes = {};
      const columns: Record<string, unknown> = {};
      for (const key of ['name', 'locale', 'support_email', 'currency'] as const) {
        if (patch[key] !== undefined && patch[key] !== store[key]) {
          columns[key] = patch[key];
          changes[key] = { from: store[key], to: patch[key] };
        }
      }
      if (columns.currency !== undefined && (await trx('orders').where('store_id', storeId).first('id'))) {
        throw ValidationError.field('currency', 'cannot change once the store has orders');
      }
      // Store pages (docs/store-pages.md): empty text clears a key; a slug another store holds is a 422.
      for (const [key, column] of STORE_PAGE_COLUMNS) {
        const value = patch[key] === '' ? null : patch[key];
        if (value !== undefined && value !== store[column]) {
          columns[column] = value;
          changes[key] = { from: store[column], to: value };
        }
      }
      if (columns.slug !== undefined) {
        const holder = await trx('stores').where('slug', columns.slug).whereNot('id', storeId).first('id');
        if (holder || columns.slug === null) throw ValidationError.field('slug', SLUG_TAKEN);
      }
      if (patch.allowed_origins !== undefined) {
        columns.allowed_origins = [...new Set(patch.allowed_origins)];
        changes.allowed_origins = { from: store.allowed_origins, to: columns.allowed_origins };
      }
      if (Object.keys(columns).length > 0) {
        await trx('stores')
          .where('id', storeId)
          .update({ ...columns, updated_at: trx.fn.now() });
      }
      if (patch.domains !== undefined) {
        const platformHost = platformHostOf(deps.config.publicBaseUrl);
        changes.domains = await writeDomains(trx, storeId, patch.domains, platformHost);
      }
      if (patch.blocked_phones !== undefined) {
        await writeBlockedPhones(trx, storeId, patch.blocked_phones);
        changes.blocked_phones = { from: null, to: patch.blocked_phones };
      }
      if (patch.settings !== undefined) {
        Object.assign(changes, await writeGrowthSettings(trx, storeId, patch.settings, store));
        const currency = String(columns.currency ?? store.currency);
        Object.assign(changes, await writeFraudSettings(trx, storeId, currency, patch.settings));
      }
      if (patch.payment_methods !== undefined) {
        const currency = String(columns.currency ?? store.currency);
        Object.assign(
          changes,
          await writePaymentMethods(trx, deps.cipher, storeId, currency, patch.payment_methods),
        );
      }
      if (Object.keys(changes).length > 0) {
        await recordAudit(trx, actor, 'store.updated', { type: 'store', id: storeId }, changes);
        // The store lookups (embed key, host) and its product answers (currency, methods) read all this.
        noteStoreChangedOn(uow, storeId);
      }
    })
    .catch((err: unknown) => {
      // Two stores claiming one slug or one domain at the same moment: the unique index decides.
      const { code, constraint } = err as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === 'stores_slug_unique') {
        throw ValidationError.field('slug', SLUG_TAKEN);
      }
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
        throw domainsError([`a domain ${TAKEN_MESSAGE}`]);
      }
      throw err;
    });
  return storeSettings(deps, storeId);
}

/** A new embed key; the old one is refused from the next request on (the store lookups are bumped). */
export async function rotateEmbedKey(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
): Promise<{ embed_key: string; previous_key_last4: string }> {
  return deps.tx(async (uow) => {
    const { trx } = uow;
    const store = await trx('stores').where('id', storeId).forUpdate().first('embed_key');
    const embedKey = randomToken(24, 'emb_pk_');
    await trx('stores').where('id', storeId).update({ embed_key: embedKey, updated_at: trx.fn.now() });
    await recordAudit(
      trx,
      actor,
      'store.embed_key_rotated',
      { type: 'store', id: storeId },
      {
        embed_key: { from: `…${String(store.embed_key).slice(-4)}`, to: `…${embedKey.slice(-4)}` },
      },
    );
    noteStoreChangedOn(uow, storeId);
    return { embed_key: embedKey, previous_key_last4: String(store.embed_key).slice(-4) };
  });
}
