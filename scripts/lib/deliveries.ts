import type { Knex } from 'knex';

/** How long the flash sale waits, after its last buyer, for the paid orders' deliveries. */
const DELIVERY_WAIT_MS = 60_000;

/** The paid orders of one product (the flash sale's), as a query to select from. */
export function paidOrdersOf(knex: Knex, productId: number): Knex.QueryBuilder {
  return knex('orders as o')
    .join('order_items as i', 'i.order_id', 'o.id')
    .join('payments as p', 'p.id', 'o.payment_id')
    .where('i.product_id', productId)
    .where('p.status', 'paid');
}

/**
 * A buyer's status says paid before the fulfilment job has delivered: waits until every paid order of the
 * product is completed (a minute at most), so the bench counts deliveries, not a race with the worker.
 */
export async function waitForDeliveries(knex: Knex, productId: number): Promise<void> {
  const due = Date.now() + DELIVERY_WAIT_MS;
  while (Date.now() < due) {
    const counts = await paidOrdersOf(knex, productId).first<{ paid: number; completed: number } | undefined>(
      knex.raw('count(*)::int as paid'),
      knex.raw('count(o.completed_at)::int as completed'),
    );
    if (!counts || counts.completed >= counts.paid) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
