import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import type { RiskReason } from './risk';

export interface HeldOrder {
  id: number;
  total_minor: number;
  currency: string;
  customer: string;
  email: string;
  score: number;
  reasons: { code: string; detail: string }[];
  created_at: Date;
}

/** The review queue: paid orders a review rule holds in Under review, oldest first (docs/fraud.md). */
export async function listHeldOrders(knex: Knex, storeId: number, limit = 50): Promise<HeldOrder[]> {
  const rows = await knex('order_risk as r')
    .join('orders as o', 'o.id', 'r.order_id')
    .where({ 'r.store_id': storeId, 'r.held': true, 'o.status': ORDER_STATUS.UNDER_REVIEW })
    .orderBy('o.created_at')
    .limit(limit)
    .select<
      {
        id: number;
        total_minor: string;
        currency: string;
        customer_first_name: string;
        customer_last_name: string;
        customer_email: string;
        score: number;
        reasons: RiskReason[];
        created_at: Date;
      }[]
    >(
      'o.id',
      'o.total_minor',
      'o.currency',
      'o.customer_first_name',
      'o.customer_last_name',
      'o.customer_email',
      'r.score',
      'r.reasons',
      'o.created_at',
    );
  return rows.map((r) => ({
    id: Number(r.id),
    total_minor: Number(r.total_minor),
    currency: r.currency,
    customer: `${r.customer_first_name} ${r.customer_last_name}`.trim(),
    email: r.customer_email,
    score: Number(r.score),
    reasons: r.reasons.map((x) => ({ code: x.code, detail: x.detail })),
    created_at: r.created_at,
  }));
}
