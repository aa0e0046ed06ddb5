import type { Knex } from 'knex';
import { CustomField, FivemMoment, Order, OrderItem, Product, ProductFivemCommand } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { isFulfillable } from './rules';

/** A custom field whose label mentions "player" ("Player", "Player ID", "player id", ...) names the player. */
const PLAYER_FIELD = /player/i;
/**
 * What a player id may look like (docs/fivem.md, "Player ids"): one player, never a group.
 * - a server id: a positive whole number, 1 to 65535, without sign or leading zero (`12`);
 * - an identifier `kind:value` of one of FiveM's identifier kinds, the value letters and digits only
 *   (`license:abc123`, `steam:110000112345678`, `discord:123456`, `fivem:42`).
 * Everything else is refused rather than escaped: `-1` (which `TriggerClientEvent` and many frameworks read
 * as "every player"), `0` (the server console), `*`, `all`, `@a`, `everyone`, spaces, `;` or quotes that
 * could change the command the game server runs.
 */
export const PLAYER_ID_PATTERN =
  /^(?:[1-9]\d{0,4}|(?:license|license2|steam|discord|fivem|xbl|live):[A-Za-z0-9]{1,60})$/;

/** The message a refused player id gets, naming the accepted forms. */
export const PLAYER_ID_RULE =
  'must be one player: a server id (1 to 65535) or an identifier such as license:abc123, steam:110000112345678 ' +
  'or discord:123456 (never -1, 0 or "all")';

/** Whether `value` names exactly one player (PLAYER_ID_PATTERN, server ids up to 65535). */
export function isPlayerId(value: string): boolean {
  return PLAYER_ID_PATTERN.test(value) && (!/^\d+$/.test(value) || Number(value) <= 65_535);
}
/**
 * Free text (customer and product names) put into a command keeps letters, digits, spaces and `_ . -`
 * only: a quote, `;` or a newline would let a buyer change what the game server's console runs.
 */
const UNSAFE_TEXT = /[^\p{L}\p{N} _.-]+/gu;

/** Queued commands that were never collected expire after this long (they stop being listed). */
export const FIVEM_COMMAND_LIFETIME_DAYS = 90;

export type PlayerResolution = { player: string } | { player: null; reason: string };

/**
 * How `{player}` is filled (docs/operations.md): the value the buyer entered in the product's first
 * custom field whose label contains "player" (case-insensitive), trimmed.
 */
export function resolvePlayer(
  fields: readonly CustomField[],
  values: Record<string, unknown>,
): PlayerResolution {
  const index = fields.findIndex((f) => PLAYER_FIELD.test(f.label));
  if (index === -1) return { player: null, reason: 'the product has no player field' };
  // Checkout stores each answer as {type, label, value} (custom-fields' StoredFieldValue); a bare string
  // or number is read too.
  const stored = values[String(index)];
  const raw = stored !== null && typeof stored === 'object' ? (stored as { value?: unknown }).value : stored;
  const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
  if (value === '') return { player: null, reason: 'no player was given at checkout' };
  if (!isPlayerId(value)) return { player: null, reason: 'the player value is not a player id' };
  return { player: value };
}

/**
 * At checkout: the buyer's player id, when the product queues FiveM commands that need one ({player} or
 * require_online) and the buyer gave a value that is not one player id. Answers the field key and message
 * for a 422 (`fields.<index>`), or null. Products without such commands take any value in the field.
 */
export async function playerFieldError(
  knex: Knex,
  product: Pick<Product, 'id'>,
  fields: readonly CustomField[],
  values: Record<string, unknown>,
): Promise<{ field: string; message: string } | null> {
  const index = fields.findIndex((f) => PLAYER_FIELD.test(f.label));
  if (index === -1) return null;
  const resolution = resolvePlayer(fields, values);
  if (resolution.player !== null || resolution.reason !== 'the player value is not a player id') return null;
  const templates = await productTemplates(knex, product.id, 'purchase');
  if (!templates.some((t) => t.command.includes('{player}') || t.require_online)) return null;
  return { field: `fields.${index}`, message: `${fields[index]!.label} ${PLAYER_ID_RULE}.` };
}

/** Text safe to put into a console command: see UNSAFE_TEXT. */
export function commandSafeText(value: string, max = 64): string {
  return value.replace(UNSAFE_TEXT, '').replace(/\s+/g, ' ').trim().slice(0, max);
}

export interface CommandValues {
  player: string | null;
  orderId: number;
  quantity: number;
  /** 1..quantity: which unit of the order item this command is for. */
  unit?: number;
  customerFirstName?: string;
  customerLastName?: string;
  productId?: number | null;
  productName?: string;
}

/**
 * The command with its placeholders filled (docs/fivem.md lists them): {player}, {order_id}, {quantity},
 * {unit}, {customer_name}, {customer_first_name}, {customer_last_name}, {product_id}, {product_name}.
 * Unknown placeholders are left as they are: `{server_id}` is filled by the game-server resource with the
 * online player's server id when it runs the command.
 */
export function renderCommand(template: string, values: CommandValues): string {
  const first = commandSafeText(values.customerFirstName ?? '');
  const last = commandSafeText(values.customerLastName ?? '');
  const filled: Record<string, string> = {
    player: values.player ?? '',
    order_id: String(values.orderId),
    quantity: String(values.quantity),
    unit: String(values.unit ?? 1),
    customer_name: `${first} ${last}`.trim(),
    customer_first_name: first,
    customer_last_name: last,
    product_id: values.productId == null ? '' : String(values.productId),
    product_name: commandSafeText(values.productName ?? '', 100),
  };
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(filled, name) ? filled[name] : whole,
  );
}

/**
 * Writes one queue entry per template and unit of the order item, once: unique on (order item, template,
 * unit), so running it again adds nothing. A template that needs a player (it uses `{player}` or waits for
 * the player to be online) but has no valid one is recorded as failed, where the merchant sees it, instead
 * of running with an empty or unsafe player. Answers how many entries were queued and failed.
 */
export async function queueItemCommands(
  knex: Knex,
  order: Order,
  item: OrderItem,
  product: Product,
  templates: readonly ProductFivemCommand[],
  kind: FivemMoment,
  now: Date = new Date(),
): Promise<{ queued: number; failed: number }> {
  const resolution = resolvePlayer(product.fields, item.fields);
  const expiresAt = new Date(now.getTime() + FIVEM_COMMAND_LIFETIME_DAYS * 86_400_000);
  let queued = 0;
  let failed = 0;
  for (let unit = 1; unit <= item.quantity; unit += 1) {
    for (const template of templates) {
      const needsPlayer = template.command.includes('{player}') || template.require_online;
      const blocked = needsPlayer && resolution.player === null;
      const inserted = await knex('fivem_commands')
        .insert({
          store_id: order.store_id,
          order_id: order.id,
          order_item_id: item.id,
          product_command_id: template.id,
          unit,
          kind,
          player_id: resolution.player,
          command: renderCommand(template.command, {
            player: resolution.player,
            orderId: order.id,
            quantity: item.quantity,
            unit,
            customerFirstName: order.customer_first_name,
            customerLastName: order.customer_last_name,
            productId: product.id,
            productName: product.name,
          }).slice(0, 1000),
          require_online: template.require_online,
          inventory_slots: template.inventory_slots ?? null,
          available_at: new Date(now.getTime() + (template.delay_seconds ?? 0) * 1000),
          expires_at: expiresAt,
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
  return { queued, failed };
}

/** A product's command templates for one moment of the order's life, in their order. */
export async function productTemplates(
  knex: Knex,
  productId: number,
  runOn: FivemMoment,
): Promise<ProductFivemCommand[]> {
  return ProductFivemCommand.query(knex)
    .where({ product_id: productId, run_on: runOn })
    .orderBy([{ column: 'position' }, { column: 'id' }]);
}

/**
 * The `fivem` job: puts the product's purchase commands on the store's command queue (fivem_commands),
 * once per command and unit bought, for the game server to collect. Safe to run twice.
 */
export async function queueFivemCommands(
  knex: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<{ queued: number; failed: number }> {
  // The order row is shared-locked: cancelOrder locks it for update, so a cancellation either sees the
  // entries written here (and withdraws them) or makes this run find the order closed.
  return knex.transaction(async (trx) => {
    const order = await Order.query(trx).findById(orderId).forShare();
    if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
    if (!isFulfillable(order.status)) return { queued: 0, failed: 0 };
    const items = await OrderItem.query(trx).where('order_id', orderId).orderBy('id');
    // A subscription's renewal order runs the product's `on_renewal` templates, not its purchase ones.
    const moment: FivemMoment = order.source === 'renewal' ? 'renewal' : 'purchase';
    const total = { queued: 0, failed: 0 };
    for (const item of items) {
      if (item.product_id === null) continue;
      const product = await Product.query(trx).findById(item.product_id);
      const templates = await productTemplates(trx, item.product_id, moment);
      if (!product || templates.length === 0) continue;
      const result = await queueItemCommands(trx, order, item, product, templates, moment, now);
      total.queued += result.queued;
      total.failed += result.failed;
    }
    return total;
  });
}
