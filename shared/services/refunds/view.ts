import type { Knex } from 'knex';
import type { Refund } from '../../../db/models';
import { formatMoney } from '../../money';
import { paginate, PageMeta, PageRequest } from '../../pagination';
import { iso } from '../../views';
import type { Infer } from '../../json-schema';
import type { refundSchema, refundSummarySchema } from './schema';

/** A refund as the Merchant API and the merchant webhook events show it: its schema's type. */
export type RefundView = Infer<typeof refundSchema>;

export function refundView(r: Refund): RefundView {
  return {
    id: Number(r.id),
    order_id: Number(r.order_id),
    amount: formatMoney(Number(r.amount_minor), r.currency),
    currency: r.currency,
    status: r.status === 'requested' || r.status === 'sent' ? 'pending' : r.status,
    state: r.status,
    kind: r.kind,
    provider: r.provider,
    reason: r.reason,
    note: r.note,
    withdraw_goods: r.withdraw_goods,
    provider_refund_id: r.provider_refund_id,
    provider_status: r.provider_status,
    failure_reason: r.failure_reason,
    attempts: Number(r.attempts),
    created_at: new Date(r.created_at).toISOString(),
    succeeded_at: iso(r.succeeded_at),
    failed_at: iso(r.failed_at),
  };
}

/** The money of an order's payment: paid, refunded (succeeded), pending, and what may still be refunded. */
export type RefundSummary = Infer<typeof refundSummarySchema>;

export async function refundSummary(
  knex: Knex,
  order: { payment_id: number | null; currency: string },
): Promise<RefundSummary> {
  const payment = order.payment_id
    ? await knex('payments').where('id', order.payment_id).first<{ status: string; amount_minor: number }>()
    : undefined;
  const paid = payment && ['paid', 'refunded'].includes(payment.status) ? Number(payment.amount_minor) : 0;
  const sums = order.payment_id
    ? await knex('refunds')
        .where('payment_id', order.payment_id)
        .select('status')
        .sum<{ status: string; total: number }[]>('amount_minor as total')
        .groupBy('status')
    : [];
  const of = (status: string) => Number(sums.find((s) => s.status === status)?.total ?? 0);
  const refunded = of('succeeded');
  const pending = of('requested') + of('sent');
  return {
    currency: order.currency,
    paid: formatMoney(paid, order.currency),
    refunded: formatMoney(refunded, order.currency),
    pending: formatMoney(pending, order.currency),
    refundable: formatMoney(Math.max(0, paid - refunded - pending), order.currency),
  };
}

/** One page of an order's refunds, newest first (the caller has checked the order is the store's). */
export async function listOrderRefunds(
  knex: Knex,
  storeId: number,
  orderId: number,
  page: PageRequest,
): Promise<{ items: RefundView[]; meta: PageMeta }> {
  const query = knex('refunds').where({ store_id: storeId, order_id: orderId });
  const paged = await paginate<Refund>(query, page, (q) => q.orderBy('id', 'desc'));
  return { items: paged.rows.map(refundView), meta: paged.meta };
}
