import type { Knex } from 'knex';
import type { LicenseStatus } from '../../../db/models';

/**
 * The dashboard's licenses page: every license of the store (the Merchant API lists them per product),
 * newest first, with its product, order and activation count. Changes to a license go through
 * shared/services/licenses/merchant.ts, the Merchant API's own functions.
 */
export interface LicenseRow {
  id: number;
  key: string;
  status: LicenseStatus;
  product_id: number;
  product_name: string;
  order_id: number | null;
  activations_count: number;
  max_activations: number;
  expires_at: Date | null;
  created_at: Date;
}

export const LICENSE_STATUSES: readonly LicenseStatus[] = [
  'generated',
  'active',
  'suspended',
  'expired',
  'revoked',
];

export async function listStoreLicenses(
  knex: Knex,
  storeId: number,
  filters: { status?: LicenseStatus; key?: string },
  page: number,
  perPage = 20,
): Promise<{ items: LicenseRow[]; total: number; lastPage: number }> {
  const base = knex('licenses as l')
    .join('products as p', 'p.id', 'l.product_id')
    .where('l.store_id', storeId);
  if (filters.status) base.where('l.status', filters.status);
  // The merchant pastes a whole key or its last characters (what a customer reads out on the phone).
  if (filters.key) base.where('l.key', 'ilike', `%${filters.key.replace(/[\\%_]/g, '\\$&')}`);
  const [{ n }] = await base.clone().count<{ n: string }[]>('* as n');
  const total = Number(n);
  const rows = await base
    .clone()
    .select(
      'l.id',
      'l.key',
      'l.status',
      'l.product_id',
      'p.name as product_name',
      'l.order_id',
      'l.activations_count',
      'l.max_activations',
      'l.expires_at',
      'l.created_at',
    )
    .orderBy('l.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage);
  return {
    items: rows.map((r) => ({
      ...r,
      id: Number(r.id),
      product_id: Number(r.product_id),
      order_id: r.order_id === null ? null : Number(r.order_id),
      activations_count: Number(r.activations_count),
      max_activations: Number(r.max_activations),
    })),
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
  };
}
