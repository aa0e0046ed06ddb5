import type { Knex } from 'knex';

/**
 * The money side of an order as the dashboard's refund form needs it, in exact minor units of the order's
 * currency (the refunds service's summary is decimal text; the form compares and pre-fills amounts).
 * Refunds themselves go through `requestRefund` (shared/services/refunds), the Merchant API's path.
 */
export interface OrderRefunds {
  /** The store's own order number (`orders.number`), the one people read. */
  number: number;
  currency: string;
  paidMinor: number;
  refundedMinor: number;
  pendingMinor: number;
  refundableMinor: number;
  refunds: {
    id: number;
    amountMinor: number;
    status: string;
    kind: string;
    reason: string | null;
    createdAt: Date;
  }[];
}

export async function orderRefunds(
  knex: Knex,
  storeId: number,
  orderId: number,
): Promise<OrderRefunds | null> {
  const order = await knex('orders as o')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .where({ 'o.id': orderId, 'o.store_id': storeId })
    .first('o.number', 'o.currency', 'o.payment_id', 'p.status as payment_status', 'p.amount_minor');
  if (!order) return null;
  const paidMinor =
    order.payment_id && ['paid', 'refunded'].includes(String(order.payment_status))
      ? Number(order.amount_minor)
      : 0;
  const rows = await knex('refunds')
    .where({ store_id: storeId, order_id: orderId })
    .orderBy('id', 'desc')
    .select('id', 'amount_minor', 'status', 'kind', 'reason', 'created_at');
  const sum = (status: string) =>
    rows.filter((r) => r.status === status).reduce((n, r) => n + Number(r.amount_minor), 0);
  const refundedMinor = sum('succeeded');
  const pendingMinor = sum('requested') + sum('sent');
  return {
    number: Number(order.number),
    currency: String(order.currency),
    paidMinor,
    refundedMinor,
    pendingMinor,
    refundableMinor: Math.max(0, paidMinor - refundedMinor - pendingMinor),
    refunds: rows.map((r) => ({
      id: Number(r.id),
      amountMinor: Number(r.amount_minor),
      status: String(r.status),
      kind: String(r.kind),
      reason: (r.reason as string | null) ?? null,
      createdAt: new Date(r.created_at),
    })),
  };
}
