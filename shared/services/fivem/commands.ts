import type { Knex } from 'knex';
import { orderFivemCommands as fivemCommandsOf } from './lifecycle';

/**
 * An order's FiveM commands as the Merchant order detail shows them, from the FiveM service: `status` is
 * the command's state there (pending, executed, withdrawn, expired, failed; a pending command past its
 * lifetime reads expired), `kind` purchase or refund (an `on_refund` template), `leased` while a game
 * server holds it, and when it ran.
 */
export async function orderFivemCommands(knex: Knex, orderId: number) {
  const { commands } = await fivemCommandsOf(knex, orderId);
  return commands.map((c) => ({
    id: c.id,
    command: c.command,
    player_id: c.player,
    kind: c.kind,
    require_online: c.require_online,
    status: c.state,
    leased: c.leased,
    executed_at: c.executed_at,
    withdrawn_at: c.withdrawn_at,
    created_at: c.created_at,
  }));
}
