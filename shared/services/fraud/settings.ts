import net from 'node:net';
import Joi from 'joi';
import type { Knex } from 'knex';
import { formatMoney, parseMoney, precisionMessage } from '../../money';
import { decimal, int } from '../catalogue/schema';
import { ValidationError } from '../../errors';

/**
 * A store's fraud settings (docs/fraud.md), under `settings` in `PATCH /shawarma/store`, the dashboard's
 * Fraud page and the fixture's store `settings`. Kept in `store_fraud_settings`, one row per store; a store
 * without a row has every control off.
 */

export interface FraudSettings {
  /** Lowercased addresses and `@domain` entries. */
  blocked_emails: string[];
  /** Addresses and CIDR ranges, IPv4 or IPv6, as written (normalised to the canonical address form). */
  blocked_ips: string[];
  max_orders_per_buyer_per_day: number | null;
  max_units_per_product_per_day: number | null;
  /** Minor units. */
  new_buyer_daily_limit_minor: number | null;
  review_above_minor: number | null;
  review_buyers_per_ip_per_hour: number | null;
}

/** The settings as the Merchant API shows and takes them (money as decimal strings). */
export interface FraudSettingsView {
  blocked_emails: string[];
  blocked_ips: string[];
  max_orders_per_buyer_per_day: number | null;
  max_units_per_product_per_day: number | null;
  new_buyer_daily_limit: string | null;
  review_above: string | null;
  review_buyers_per_ip_per_hour: number | null;
}

export type FraudSettingsPatch = Partial<FraudSettingsView>;

export const NO_FRAUD_SETTINGS: FraudSettings = Object.freeze({
  blocked_emails: [],
  blocked_ips: [],
  max_orders_per_buyer_per_day: null,
  max_units_per_product_per_day: null,
  new_buyer_daily_limit_minor: null,
  review_above_minor: null,
  review_buyers_per_ip_per_hour: null,
}) as FraudSettings;

/** `1.2.3.4`, `2001:db8::1`, `10.0.0.0/8`, `2001:db8::/32`: the canonical form, or null when it is none. */
export function normaliseIpRule(value: string): string | null {
  const [address, bits, ...rest] = value.trim().split('/');
  if (rest.length > 0 || !address) return null;
  const family = net.isIP(address);
  if (family === 0) return null;
  const canonical = new net.SocketAddress({ address, family: family === 4 ? 'ipv4' : 'ipv6' }).address;
  if (bits === undefined) return canonical;
  if (!/^\d{1,3}$/.test(bits)) return null;
  const prefix = Number(bits);
  if (prefix > (family === 4 ? 32 : 128)) return null;
  return `${canonical}/${prefix}`;
}

/** `buyer@example.com` or `@example.com`, lowercased. */
const EMAIL_RULE = /^(?:[^\s@]+)?@[^\s@]+\.[^\s@]+$/;

const emailRule = Joi.string()
  .trim()
  .lowercase()
  .max(254)
  .pattern(EMAIL_RULE)
  .messages({ 'string.pattern.base': 'must be an e-mail address or an @domain' });

const ipRule = Joi.string()
  .trim()
  .max(64)
  .custom((value: string, helpers) => normaliseIpRule(value) ?? helpers.error('ip.rule'))
  .messages({ 'ip.rule': 'must be an IPv4 or IPv6 address or a CIDR range' });

const positive = (max: number) => int().min(1).max(max).allow(null);

/** The keys of the fraud controls' settings (beside growth's in shared/services/stores/settings-schema.ts). */
export const fraudSettingsKeys = {
  blocked_emails: Joi.array().items(emailRule).max(10_000),
  blocked_ips: Joi.array().items(ipRule).max(10_000),
  max_orders_per_buyer_per_day: positive(10_000),
  max_units_per_product_per_day: positive(1_000_000),
  new_buyer_daily_limit: decimal().allow(null),
  review_above: decimal().allow(null),
  review_buyers_per_ip_per_hour: positive(10_000),
};

/** One schema for the API, the dashboard and the fixture. */
export const fraudSettingsSchema = Joi.object<FraudSettingsPatch, true>(fraudSettingsKeys);

export type FraudSettingsRow = {
  blocked_emails: string[];
  blocked_ips: string[];
  max_orders_per_buyer_per_day: number | null;
  max_units_per_product_per_day: number | null;
  new_buyer_daily_limit_minor: string | number | null;
  review_above_minor: string | number | null;
  review_buyers_per_ip_per_hour: number | null;
};

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

export async function fraudSettingsOf(knex: Knex, storeId: number): Promise<FraudSettings> {
  return fraudSettingsOfRow(
    await knex('store_fraud_settings').where('store_id', storeId).first<FraudSettingsRow | undefined>(),
  );
}

/** The settings of a `store_fraud_settings` row (as read, or as `to_jsonb` of it), or none. */
export function fraudSettingsOfRow(row: FraudSettingsRow | null | undefined): FraudSettings {
  if (!row) return NO_FRAUD_SETTINGS;
  return {
    blocked_emails: row.blocked_emails ?? [],
    blocked_ips: row.blocked_ips ?? [],
    max_orders_per_buyer_per_day: row.max_orders_per_buyer_per_day,
    max_units_per_product_per_day: row.max_units_per_product_per_day,
    new_buyer_daily_limit_minor: num(row.new_buyer_daily_limit_minor),
    review_above_minor: num(row.review_above_minor),
    review_buyers_per_ip_per_hour: row.review_buyers_per_ip_per_hour,
  };
}

export function fraudSettingsView(s: FraudSettings, currency: string): FraudSettingsView {
  const money = (v: number | null) => (v === null ? null : formatMoney(v, currency));
  return {
    blocked_emails: s.blocked_emails,
    blocked_ips: s.blocked_ips,
    max_orders_per_buyer_per_day: s.max_orders_per_buyer_per_day,
    max_units_per_product_per_day: s.max_units_per_product_per_day,
    new_buyer_daily_limit: money(s.new_buyer_daily_limit_minor),
    review_above: money(s.review_above_minor),
    review_buyers_per_ip_per_hour: s.review_buyers_per_ip_per_hour,
  };
}

/**
 * Writes the keys `patch` names (a list given replaces the stored list), in the caller's transaction.
 * Returns the audit changes. `field` prefixes the 422's field names (`settings.review_above`).
 */
export async function writeFraudSettings(
  trx: Knex,
  storeId: number,
  currency: string,
  patch: FraudSettingsPatch,
  field = 'settings',
): Promise<Record<string, { from: unknown; to: unknown }>> {
  const columns: Record<string, unknown> = {};
  const errors: Record<string, string[]> = {};
  const money = (key: 'new_buyer_daily_limit' | 'review_above', column: string) => {
    const value = patch[key];
    if (value === undefined) return;
    if (value === null) {
      columns[column] = null;
      return;
    }
    const minor = parseMoney(value, currency);
    if (minor === null) errors[`${field}.${key}`] = [precisionMessage(currency)];
    else columns[column] = minor;
  };
  if (patch.blocked_emails !== undefined) columns.blocked_emails = [...new Set(patch.blocked_emails)];
  if (patch.blocked_ips !== undefined)
    columns.blocked_ips = [...new Set(patch.blocked_ips.map((ip) => normaliseIpRule(ip)!))];
  for (const key of [
    'max_orders_per_buyer_per_day',
    'max_units_per_product_per_day',
    'review_buyers_per_ip_per_hour',
  ] as const) {
    if (patch[key] !== undefined) columns[key] = patch[key];
  }
  money('new_buyer_daily_limit', 'new_buyer_daily_limit_minor');
  money('review_above', 'review_above_minor');
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (Object.keys(columns).length === 0) return {};
  const before = await fraudSettingsOf(trx, storeId);
  await trx('store_fraud_settings')
    .insert({ store_id: storeId, ...columns, updated_at: trx.fn.now() })
    .onConflict('store_id')
    .merge({ ...columns, updated_at: trx.fn.now() });
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, to] of Object.entries(columns)) {
    changes[`settings.${key}`] = { from: (before as unknown as Record<string, unknown>)[key] ?? null, to };
  }
  return changes;
}

/** Adds entries to the store's block lists (a dispute's buyer), keeping what is there. */
export async function addToBlockLists(trx: Knex, storeId: number, add: { emails?: string[] }): Promise<void> {
  const emails = (add.emails ?? []).map((e) => e.trim().toLowerCase()).filter((e) => e.includes('@'));
  if (emails.length === 0) return;
  await trx.raw(
    `insert into store_fraud_settings (store_id, blocked_emails) values (?, ?::text[])
     on conflict (store_id) do update set
       blocked_emails = (select array_agg(distinct e) from unnest(store_fraud_settings.blocked_emails || excluded.blocked_emails) e),
       updated_at = now()`,
    [storeId, emails],
  );
}
