import type { Knex } from 'knex';
import { formatMoney } from '../../money';

export interface DisputeView {
  id: number;
  order_id: number;
  provider: string;
  provider_dispute_id: string;
  reason: string | null;
  amount: string;
  currency: string;
  deadline: string | null;
  licenses_revoked: number;
  created_at: string;
}

export async function listDisputes(knex: Knex, storeId: number, limit = 50): Promise<DisputeView[]> {
  const rows = await knex('order_disputes')
    .where('store_id', storeId)
    .orderBy('created_at', 'desc')
    .limit(limit);
  return rows.map((r: Record<string, unknown>) => ({
    id: Number(r.id),
    order_id: Number(r.order_id),
    provider: String(r.provider),
    provider_dispute_id: String(r.provider_dispute_id),
    reason: (r.reason as string | null) ?? null,
    amount: formatMoney(Number(r.amount_minor), String(r.currency)),
    currency: String(r.currency),
    deadline: r.deadline_at ? new Date(r.deadline_at as Date).toISOString() : null,
    licenses_revoked: Number(r.licenses_revoked),
    created_at: new Date(r.created_at as Date).toISOString(),
  }));
}
