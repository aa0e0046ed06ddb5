import type { Knex } from 'knex';
import { Order, OrderItem, Product } from '../../../db/models';
import { productTemplates, queueItemCommands } from '../fulfilment/fivem';
import { iso } from '../../views';

export interface Withdrawal {
  /** Commands that were waiting and will now never be listed. */
  withdrawn: number;
  /** The products' `on_refund` commands queued to take back what was already given. */
  revokesQueued: number;
}

/**
 * When an order is cancelled or refunded (cancelOrder calls this inside its transaction, with the order
 * row locked): its purchase commands not yet executed are withdrawn, so no listing shows them again, and
 * for every item something was possibly given for (a command executed, or listed and still leased: it may
 * be running right now) the product's `on_refund` templates are queued. Safe to call again: a second call
 * withdraws nothing and queues nothing new (the queue's unique key).
 */
export async function withdrawOrderCommands(
  trx: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<Withdrawal> {
  const commands = (await trx('fivem_commands')
    .where({ order_id: orderId, kind: 'purchase' })
    .select('id', 'order_item_id', 'status', 'leased_until')
    .forUpdate()) as {
    id: number;
    order_item_id: number | null;
    status: string;
    leased_until: Date | null;
  }[];
  const given = new Set<number>();
  for (const c of commands) {
    const inFlight = c.status === 'pending' && c.leased_until !== null && c.leased_until > now;
    if ((c.status === 'executed' || inFlight) && c.order_item_id !== null) given.add(c.order_item_id);
  }
  const withdrawn = await trx('fivem_commands')
    .whereIn(
      'id',
      commands.filter((c) => c.status === 'pending').map((c) => c.id),
    )
    .update({ status: 'withdrawn', withdrawn_at: now, leased_until: null });

  let revokesQueued = 0;
  if (given.size > 0) {
    const order = await Order.query(trx).findById(orderId);
    const items = await OrderItem.query(trx)
      .whereIn('id', [...given])
      .orderBy('id');
    for (const item of items) {
      if (!order || item.product_id === null) continue;
      const product = await Product.query(trx).findById(item.product_id);
      const templates = await productTemplates(trx, item.product_id, 'refund');
      if (!product || templates.length === 0) continue;
      revokesQueued += (await queueItemCommands(trx, order, item, product, templates, 'refund', now)).queued;
    }
  }
  return { withdrawn, revokesQueued };
}

export type FivemCommandState = 'pending' | 'executed' | 'withdrawn' | 'expired' | 'failed';

export interface OrderFivemCommand {
  id: number;
  command: string;
  player: string | null;
  /** `purchase`, or `refund` for an `on_refund` template queued by a cancellation or refund. */
  kind: 'purchase' | 'refund';
  state: FivemCommandState;
  require_online: boolean;
  /** Pending and listed to a game server that has not acknowledged it yet. */
  leased: boolean;
  available_at: string;
  executed_at: string | null;
  withdrawn_at: string | null;
  created_at: string;
}

export interface OrderFivemCommands {
  commands: OrderFivemCommand[];
  counts: Record<FivemCommandState, number>;
}

/**
 * An order's FiveM commands with their states, for the Merchant API's order detail. A pending command
 * whose lifetime has ended shows as expired even before a listing marks it so.
 */
export async function orderFivemCommands(
  knex: Knex,
  orderId: number,
  now: Date = new Date(),
): Promise<OrderFivemCommands> {
  const rows = (await knex('fivem_commands').where('order_id', orderId).orderBy('id')) as {
    id: number;
    command: string;
    player_id: string | null;
    kind: 'purchase' | 'refund';
    status: FivemCommandState;
    require_online: boolean;
    leased_until: Date | null;
    available_at: Date;
    executed_at: Date | null;
    withdrawn_at: Date | null;
    expires_at: Date | null;
    created_at: Date;
  }[];
  const counts: Record<FivemCommandState, number> = {
    pending: 0,
    executed: 0,
    withdrawn: 0,
    expired: 0,
    failed: 0,
  };
  const commands = rows.map((r) => {
    const lapsed = r.status === 'pending' && r.expires_at !== null && r.expires_at <= now;
    const leased = r.status === 'pending' && r.leased_until !== null && r.leased_until > now;
    const state: FivemCommandState = lapsed && !leased ? 'expired' : r.status;
    counts[state] += 1;
    return {
      id: r.id,
      command: r.command,
      player: r.player_id,
      kind: r.kind,
      state,
      require_online: r.require_online,
      leased: state === 'pending' && leased,
      available_at: new Date(r.available_at).toISOString(),
      executed_at: iso(r.executed_at),
      withdrawn_at: iso(r.withdrawn_at),
      created_at: new Date(r.created_at).toISOString(),
    };
  });
  return { commands, counts };
}

/** Every store's commands by state, for /metrics (pending ones past their lifetime count as expired). */
export async function countFivemCommands(
  knex: Knex,
  now: Date = new Date(),
): Promise<Record<FivemCommandState, number>> {
  const { rows } = await knex.raw<{ rows: { state: FivemCommandState; n: number }[] }>(
    `select case when status = 'pending' and expires_at <= ? and (leased_until is null or leased_until <= ?)
                 then 'expired' else status end as state,
            count(*)::int as n
       from fivem_commands group by 1`,
    [now, now],
  );
  const counts: Record<FivemCommandState, number> = {
    pending: 0,
    executed: 0,
    withdrawn: 0,
    expired: 0,
    failed: 0,
  };
  for (const r of rows) if (r.state in counts) counts[r.state] += Number(r.n);
  return counts;
}
