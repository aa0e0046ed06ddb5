import type { Knex } from 'knex';
import { CustomField, Order, OrderItem, Product, ProductFivemCommand } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { isFulfillable } from './rules';

/** A custom field whose label mentions "player" ("Player", "Player ID", "player id", ...) names the player. */
const PLAYER_FIELD = /player/i;
/**
 * What a player reference may look like: a server id (12), or an identifier such as steam:110000112345678,
 * license:abc123, discord:123456. Anything else (spaces, semicolons, quotes) could change the command the
 * game server runs, so it is refused rather than escaped.
 */
const PLAYER_VALUE = /^[A-Za-z0-9:_.-]{1,64}$/;

export type PlayerResolution = { player: string } | { player: null; reason: string };

/**
 * How `{player}` is filled: the value the customer gave in the product's first custom field whose label
 * contains "player" (case-insensitive), as entered at checkout, trimmed.
 */
export function resolvePlayer(
  fields: readonly CustomField[],
  values: Record<string, unknown>,
): PlayerResolution {
  const index = fields.findIndex((f) => PLAYER_FIELD.test(f.label));
  if (index === -1) return { player: null, reason: 'the product has no player field' };
  const raw = values[String(index)];
  const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
  if (value === '') return { player: null, reason: 'no player was given at checkout' };
  if (!PLAYER_VALUE.test(value)) return { player: null, reason: 'the player value is not a player id' };
  return { player: value };
}

/** The command with its placeholders filled: {player}, {order_id}, {quantity}. */
export function renderCommand(
  template: string,
  values: { player: string | null; orderId: number; quantity: number },
): string {
  return template
    .replaceAll('{player}', values.player ?? '')
    .replaceAll('{order_id}', String(values.orderId))
    .replaceAll('{quantity}', String(values.quantity));
}

/**
 * The `fivem` job: puts the product's FiveM commands on the store's command queue (fivem_commands), once
 * per command and unit bought, for the game server to collect. Unique on (order item, command, unit), so a
 * second run adds nothing. A command that needs a player but has none valid is recorded as failed, where
 * the merchant sees it, instead of running with an empty or unsafe player.
 */
export async function queueFivemCommands(
  knex: Knex,
  orderId: number,
): Promise<{ queued: number; failed: number }> {
  const order = await Order.query(knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  if (!isFulfillable(order.status)) return { queued: 0, failed: 0 };
  const items = await OrderItem.query(knex).where('order_id', orderId).orderBy('id');
  let queued = 0;
  let failed = 0;
  for (const item of items) {
    if (item.product_id === null) continue;
    const product = await Product.query(knex).findById(item.product_id);
    const commands = await ProductFivemCommand.query(knex)
      .where('product_id', item.product_id)
      .orderBy([{ column: 'position' }, { column: 'id' }]);
    if (!product || commands.length === 0) continue;
    const resolution = resolvePlayer(product.fields, item.fields);
    for (let unit = 1; unit <= item.quantity; unit += 1) {
      for (const command of commands) {
        const needsPlayer = command.command.includes('{player}');
        const blocked = needsPlayer && resolution.player === null;
        const inserted = await knex('fivem_commands')
          .insert({
            store_id: order.store_id,
            order_id: order.id,
            order_item_id: item.id,
            product_command_id: command.id,
            unit,
            player_id: resolution.player,
            command: renderCommand(command.command, {
              player: resolution.player,
              orderId: order.id,
              quantity: item.quantity,
            }).slice(0, 1000),
            require_online: command.require_online,
            status: blocked ? 'failed' : 'pending',
          })
          .onConflict()
          .ignore()
          .returning('id');
        if (inserted.length > 0) {
          if (blocked) failed += 1;
          else queued += 1;
        }
      }
    }
  }
  return { queued, failed };
}
