import type { Knex } from 'knex';

/**
 * An order's current status in a store, or null when the store has no such order: the dashboard's status
 * form names the permission it needs from where the order is now (shared/services/staff/roles.ts).
 */
export async function orderStatusOf(knex: Knex, storeId: number, orderId: number): Promise<number | null> {
  const row = await knex('orders')
    .where({ id: orderId, store_id: storeId })
    .first<{ status: number } | undefined>('status');
  return row ? Number(row.status) : null;
}

/** The store's own number of one of its orders (`orders.number`, the one people read); null if not its. */
export async function orderNumberOf(knex: Knex, storeId: number, orderId: number): Promise<number | null> {
  const row = await knex('orders')
    .where({ id: orderId, store_id: storeId })
    .first<{ number: number } | undefined>('number');
  return row ? Number(row.number) : null;
}
