import type { Knex } from 'knex';
import type { LicenseStatus, LockType } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { noteLicensesChanged, type LicenseCacheDeps } from './cache';
import { recordLicenseEvent } from './history';
import { identifierHashes, identifierHint, normalizeIp } from './identifiers';
import { iso, pageMeta, type PageMeta } from '../../views';

/**
 * The merchant's control of licenses (Merchant API, /shawarma): list a product's licenses, show one with
 * its activations, suspend, reactivate, reset activations. Everything is scoped to the merchant's store: a
 * license or product of another store is not found. Every change moves the license's verify cache counter
 * after it commits, so the next verify anywhere sees it.
 */
export interface MerchantLicenseDeps extends LicenseCacheDeps {
  knex: Knex;
  appSecret: string;
  appSecretPrevious?: readonly string[];
}

export interface MerchantLicense {
  id: number;
  key: string;
  product_id: number;
  plan_id: number | null;
  order_id: number | null;
  customer_id: number | null;
  status: LicenseStatus;
  lock_type: LockType;
  max_activations: number;
  activations_count: number;
  starts_at: string | null;
  expires_at: string | null;
  metadata: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

export interface MerchantActivation {
  id: number;
  /** The last characters of the hardware id or IP address (the value itself is kept only as an HMAC). */
  hint: string | null;
  created_at: string;
  last_seen_at: string;
}

export type { PageMeta } from '../../views';

interface LicenseRow {
  id: number;
  store_id: number;
  key: string;
  product_id: number;
  plan_id: number | null;
  order_id: number | null;
  customer_id: number | null;
  status: LicenseStatus;
  lock_type: LockType;
  max_activations: number;
  activations_count: number;
  starts_at: Date | null;
  expires_at: Date | null;
  metadata: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'store_id',
  'key',
  'product_id',
  'plan_id',
  'order_id',
  'customer_id',
  'status',
  'lock_type',
  'max_activations',
  'activations_count',
  'starts_at',
  'expires_at',
  'metadata',
  'created_at',
  'updated_at',
];

function view(row: LicenseRow): MerchantLicense {
  return {
    id: row.id,
    key: row.key,
    product_id: row.product_id,
    plan_id: row.plan_id,
    order_id: row.order_id,
    customer_id: row.customer_id,
    status: row.status,
    lock_type: row.lock_type,
    max_activations: row.max_activations,
    activations_count: row.activations_count,
    starts_at: iso(row.starts_at),
    expires_at: iso(row.expires_at),
    metadata: row.metadata ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

async function findLicense(knex: Knex, storeId: number, licenseId: number): Promise<LicenseRow> {
  const row = await knex('licenses')
    .where({ id: licenseId, store_id: storeId })
    .first<LicenseRow | undefined>(COLUMNS);
  if (!row) throw new NotFoundError('License not found');
  return row;
}

export interface LicenseListQuery {
  page: number;
  per_page: number;
  status?: LicenseStatus;
}

/** A product's licenses, newest first, one page at a time. */
export async function listProductLicenses(
  deps: { knex: Knex },
  storeId: number,
  productId: number,
  query: LicenseListQuery,
): Promise<{ items: MerchantLicense[]; meta: PageMeta }> {
  const product = await deps.knex('products').where({ id: productId, store_id: storeId }).first('id');
  if (!product) throw new NotFoundError('Product not found');
  const base = deps.knex('licenses').where({ product_id: productId, store_id: storeId });
  if (query.status) base.where('status', query.status);
  const [countRow] = await base.clone().count<{ n: string }[]>('* as n');
  const total = Number(countRow?.n ?? 0);
  const rows = await base
    .clone()
    .select<LicenseRow[]>(COLUMNS)
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page);
  return {
    items: rows.map(view),
    meta: pageMeta(query, total),
  };
}

/** One license with its activations, oldest first. */
export async function showLicense(
  deps: { knex: Knex },
  storeId: number,
  licenseId: number,
): Promise<MerchantLicense & { activations: MerchantActivation[] }> {
  const row = await findLicense(deps.knex, storeId, licenseId);
  const activations = await deps
    .knex('license_activations')
    .where({ license_id: licenseId })
    .orderBy('id')
    .select<{ id: number; hint: string | null; created_at: Date; last_seen_at: Date }[]>(
      'id',
      'hint',
      'created_at',
      'last_seen_at',
    );
  return {
    ...view(row),
    activations: activations.map((a) => ({
      id: a.id,
      hint: a.hint,
      created_at: a.created_at.toISOString(),
      last_seen_at: a.last_seen_at.toISOString(),
    })),
  };
}

/**
 * Moves a license from one of `from` to `to` with one conditional UPDATE; already in `to` changes nothing.
 * Any other status is refused with `refusal`.
 */
async function transition(
  deps: MerchantLicenseDeps,
  storeId: number,
  licenseId: number,
  from: LicenseStatus[],
  to: LicenseStatus,
  refusal: (status: LicenseStatus) => string,
): Promise<MerchantLicense & { activations: MerchantActivation[] }> {
  const row = await findLicense(deps.knex, storeId, licenseId);
  const moved = await deps
    .knex('licenses')
    .where({ id: licenseId, store_id: storeId })
    .whereIn('status', from)
    .update({ status: to, updated_at: new Date() });
  if (moved > 0) {
    await noteLicensesChanged(deps, [row.key]);
  } else {
    const current = (await findLicense(deps.knex, storeId, licenseId)).status;
    if (current !== to) throw new InvalidError(refusal(current));
  }
  return showLicense(deps, storeId, licenseId);
}

/** active -> suspended: verify answers LICENSE_SUSPENDED until the merchant reactivates it. */
export function suspendLicense(
  deps: MerchantLicenseDeps,
  storeId: number,
  licenseId: number,
): Promise<MerchantLicense & { activations: MerchantActivation[] }> {
  return transition(
    deps,
    storeId,
    licenseId,
    ['active'],
    'suspended',
    (status) => `Only an active license can be suspended; this one is ${status}`,
  );
}

/**
 * suspended -> active. A license whose date passed while suspended is active again but verifies as expired
 * (and the hourly job then marks it expired).
 */
export function reactivateLicense(
  deps: MerchantLicenseDeps,
  storeId: number,
  licenseId: number,
): Promise<MerchantLicense & { activations: MerchantActivation[] }> {
  return transition(
    deps,
    storeId,
    licenseId,
    ['suspended'],
    'active',
    (status) => `Only a suspended license can be reactivated; this one is ${status}`,
  );
}

export interface ResetActivationsInput {
  /** Remove this hardware id (or, on an IP-locked license, this IP address) only. */
  hwid?: string;
  /** Remove this activation only (its id from the license detail). */
  activation_id?: number;
}

/**
 * Removes activations (one, by hwid or activation id; or all) and brings the count down with them in one
 * transaction, the license row locked so a verify activating at the same time waits for it.
 */
export async function resetActivations(
  deps: MerchantLicenseDeps,
  storeId: number,
  licenseId: number,
  input: ResetActivationsInput,
): Promise<MerchantLicense & { activations: MerchantActivation[]; removed: number }> {
  const row = await findLicense(deps.knex, storeId, licenseId);
  const removed = await deps.knex.transaction(async (trx) => {
    await trx('licenses').where({ id: licenseId }).forUpdate().first('id');
    const target = trx('license_activations').where({ license_id: licenseId });
    if (input.activation_id !== undefined) target.where('id', input.activation_id);
    if (input.hwid !== undefined) {
      const value = row.lock_type === 'ip' ? normalizeIp(input.hwid) : input.hwid.trim();
      const lock = row.lock_type === 'ip' ? 'ip' : 'hwid';
      target.whereIn('identifier', identifierHashes(deps, lock, value));
    }
    const n = await target.delete();
    if (n > 0) {
      await recordLicenseEvent(trx, {
        licenseId,
        kind: 'reset',
        actor: 'merchant',
        hint:
          input.hwid !== undefined
            ? identifierHint(row.lock_type === 'ip' ? 'ip' : 'hwid', input.hwid.trim())
            : null,
        removed: n,
        at: new Date(),
      });
      await trx('licenses')
        .where({ id: licenseId })
        .update({
          activations_count: trx('license_activations').where({ license_id: licenseId }).count(),
          updated_at: new Date(),
        });
    }
    return n;
  });
  if (input.activation_id !== undefined && removed === 0) throw new NotFoundError('Activation not found');
  if (input.hwid !== undefined && removed === 0) throw new NotFoundError('No activation for this hwid');
  if (removed > 0) await noteLicensesChanged(deps, [row.key]);
  return { ...(await showLicense(deps, storeId, licenseId)), removed };
}
