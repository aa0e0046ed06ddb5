import type { Knex } from 'knex';

/**
 * An order's FiveM commands with their state, read straight from `fivem_commands`.
 * Stand-in: the FiveM branch exposes a service listing an order's commands; at merge this function
 * should delegate to it (the shape below is what the Merchant API answers).
 * State: pending (waiting for the game server), delivered (collected and run), failed (withdrawn, e.g.
 * the order was cancelled before the server collected it).
 */
export async function orderFivemCommands(
  knex: Knex,
  orderId: number,
): Promise<
  {
    id: number;
    command: string;
    player_id: string | null;
    require_online: boolean;
    status: string;
    delivered_at: string | null;
    created_at: string;
  }[]
> {
  const rows = await knex('fivem_commands')
    .where('order_id', orderId)
    .orderBy('id')
    .select('id', 'command', 'player_id', 'require_online', 'status', 'delivered_at', 'created_at');
  return rows.map((r) => ({
    id: Number(r.id),
    command: String(r.command),
    player_id: r.player_id ?? null,
    require_online: Boolean(r.require_online),
    status: String(r.status),
    delivered_at: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
    created_at: new Date(r.created_at).toISOString(),
  }));
}
