import type { Knex } from 'knex';
import { formatMoney } from '../../money';
import { orderRisk, type OrderRiskView } from './risk';

/** What the fraud controls add to an order's detail (Merchant API, dashboard): its dispute and risk. */
export interface OrderFraudView {
  disputed: boolean;
  dispute: {
    id: string;
    reason: string | null;
    amount: string;
    deadline: string | null;
    created_at: string;
  } | null;
  risk: OrderRiskView | null;
}

export async function orderFraud(knex: Knex, storeId: number, orderId: number): Promise<OrderFraudView> {
  const [order, dispute, risk] = await Promise.all([
    knex('orders')
      .where({ id: orderId, store_id: storeId })
      .first<{ disputed_at: Date | null } | undefined>('disputed_at'),
    knex('order_disputes').where({ order_id: orderId, store_id: storeId }).first(),
    orderRisk(knex, storeId, orderId),
  ]);
  return {
    disputed: Boolean(order?.disputed_at),
    dispute: dispute
      ? {
          id: String(dispute.provider_dispute_id),
          reason: (dispute.reason as string | null) ?? null,
          amount: formatMoney(Number(dispute.amount_minor), String(dispute.currency)),
          deadline: dispute.deadline_at ? new Date(dispute.deadline_at as Date).toISOString() : null,
          created_at: new Date(dispute.created_at as Date).toISOString(),
        }
      : null,
    risk,
  };
}
