import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';

/**
 * The command queue as game servers see it. Vocabulary in CONTEXT.md. Exactly-once, as far as a server
 * that acknowledges can make it: listing a command leases it to the asking server for `leaseSeconds`
 * (other listings skip it meanwhile, decided by one UPDATE over rows taken FOR UPDATE SKIP LOCKED, so two
 * servers polling at once never get the same command); the acknowledgement (DELETE) marks it executed;
 * a command not acknowledged before its lease ends is listed again.
 */
export interface QueueSettings {
  /** How long a listed command is reserved for the server that listed it. */
  leaseSeconds: number;
  /** The pace of polling when nothing is due sooner: `next_check` never exceeds it. */
  pollSeconds: number;
}

/** At most this many commands per listing; a full batch asks the server to come back soon. */
export const FIVEM_BATCH_SIZE = 100;
/** At most this many player ids in `data.players`. */
export const FIVEM_PLAYERS_LIMIT = 500;
/** At most this many ids in one acknowledgement. */
export const FIVEM_ACK_LIMIT = 500;
/** `next_check` when a listing was full: more is waiting. */
const SOON_SECONDS = 2;

export interface QueuedCommandView {
  id: number;
  command: string;
  /** The player id the buyer entered (null when the product has no player field). */
  player: string | null;
  order_id: number | null;
  require_online: boolean;
  /** Free inventory slots the player needs for the command; null: no condition. */
  inventory_slots: number | null;
  /** When the lease ends: acknowledge before then or the command is listed again. */
  lease_expires_at: string;
}

export interface OfflineListing {
  commands: QueuedCommandView[];
  players: string[];
  next_check: number;
}

export interface PlayerListing {
  commands: QueuedCommandView[];
  next_check: number;
}

export type IgnoredReason = 'unknown' | 'not_listed' | 'executed' | 'withdrawn' | 'expired' | 'failed';

export interface Acknowledgement {
  executed: number[];
  ignored: { id: number; reason: IgnoredReason }[];
  next_check: number;
}

export interface QueueServer {
  id: number;
  store_id: number;
}

interface LeasedRow {
  id: number;
  command: string;
  player_id: string | null;
  order_id: number | null;
  require_online: boolean;
  inventory_slots: number | null;
  leased_until: Date;
}

function view(row: LeasedRow): QueuedCommandView {
  return {
    id: row.id,
    command: row.command,
    player: row.player_id,
    order_id: row.order_id,
    require_online: row.require_online,
    inventory_slots: row.inventory_slots,
    lease_expires_at: new Date(row.leased_until).toISOString(),
  };
}

/** Pending, due, not leased to anyone, not expired: what a listing may hand out. */
const LISTABLE = `status = 'pending' and available_at <= :now
  and (leased_until is null or leased_until <= :now)
  and (expires_at is null or expires_at > :now)`;

/** Pending commands whose lifetime ended while nobody held them become expired. */
async function expireDue(knex: Knex, storeId: number, now: Date): Promise<void> {
  await knex('fivem_commands')
    .where({ store_id: storeId, status: 'pending' })
    .where('expires_at', '<=', now)
    .where((q) => q.whereNull('leased_until').orWhere('leased_until', '<=', now))
    .update({ status: 'expired', leased_until: null });
}

async function lease(
  knex: Knex,
  server: QueueServer,
  filter: { online: false } | { online: true; player: string },
  settings: QueueSettings,
  now: Date,
): Promise<QueuedCommandView[]> {
  const leasedUntil = new Date(now.getTime() + settings.leaseSeconds * 1000);
  const which = filter.online ? 'require_online and player_id = :player' : 'not require_online';
  const { rows } = await knex.raw<{ rows: LeasedRow[] }>(
    `with picked as (
       select id from fivem_commands
       where store_id = :store and ${which} and ${LISTABLE}
       order by id
       limit :limit
       for update skip locked
     )
     update fivem_commands c
        set leased_until = :leasedUntil, leased_by = :server, lease_count = c.lease_count + 1
       from picked
      where c.id = picked.id
     returning c.id, c.command, c.player_id, c.order_id, c.require_online, c.inventory_slots, c.leased_until`,
    {
      store: server.store_id,
      server: server.id,
      player: filter.online ? filter.player : null,
      now,
      leasedUntil,
      limit: FIVEM_BATCH_SIZE,
    },
  );
  return rows.sort((a, b) => a.id - b.id).map(view);
}

/**
 * Seconds until the server should ask again: soon when the listing was full, else when the next delayed
 * command of the store becomes due, never later than the poll interval and never sooner than a second.
 */
async function nextCheck(
  knex: Knex,
  storeId: number,
  listed: number,
  settings: QueueSettings,
  now: Date,
): Promise<number> {
  if (listed >= FIVEM_BATCH_SIZE) return Math.min(SOON_SECONDS, settings.pollSeconds);
  const row = await knex('fivem_commands')
    .where({ store_id: storeId, status: 'pending' })
    .where('available_at', '>', now)
    .min<{ next: Date | null }>('available_at as next')
    .first();
  if (!row?.next) return settings.pollSeconds;
  const seconds = Math.ceil((new Date(row.next).getTime() - now.getTime()) / 1000);
  return Math.max(1, Math.min(settings.pollSeconds, seconds));
}

/**
 * GET /api/fivem/queue: leases the store's due commands that need no online player, and names the
 * players who have due commands waiting for them online.
 */
export async function listOfflineCommands(
  knex: Knex,
  server: QueueServer,
  settings: QueueSettings,
  now: Date = new Date(),
): Promise<OfflineListing> {
  await expireDue(knex, server.store_id, now);
  const commands = await lease(knex, server, { online: false }, settings, now);
  const players = await knex('fivem_commands')
    .distinct('player_id')
    .where('store_id', server.store_id)
    .where('require_online', true)
    .whereNotNull('player_id')
    .whereRaw(LISTABLE.replaceAll(':now', '?'), [now, now, now])
    .orderBy('player_id')
    .limit(FIVEM_PLAYERS_LIMIT)
    .pluck('player_id');
  return {
    commands,
    players: players as string[],
    next_check: await nextCheck(knex, server.store_id, commands.length, settings, now),
  };
}

/**
 * GET /api/fivem/queue/online/{playerId}: leases the due commands waiting for that player. A player the
 * store never queued anything for is NotFound (a typo in the resource's matching, not an empty queue).
 */
export async function listPlayerCommands(
  knex: Knex,
  server: QueueServer,
  player: string,
  settings: QueueSettings,
  now: Date = new Date(),
): Promise<PlayerListing> {
  const known = await knex('fivem_commands')
    .where({ store_id: server.store_id, player_id: player })
    .first('id');
  if (!known) throw new NotFoundError('Unknown player: no command was ever queued for this player');
  await expireDue(knex, server.store_id, now);
  const commands = await lease(knex, server, { online: true, player }, settings, now);
  return {
    commands,
    next_check: await nextCheck(knex, server.store_id, commands.length, settings, now),
  };
}

/**
 * DELETE /api/fivem/queue: marks the listed commands executed. Idempotent and never an error for an id it
 * cannot take: those are reported in `ignored` with the reason (`executed` when acknowledged before, so a
 * repeated acknowledgement whose answer was lost is harmless; `unknown` for ids of other stores too, so
 * nothing is revealed about them). A command never listed cannot be acknowledged (`not_listed`).
 */
export async function acknowledgeCommands(
  knex: Knex,
  server: QueueServer,
  ids: readonly number[],
  settings: QueueSettings,
  now: Date = new Date(),
): Promise<Acknowledgement> {
  const wanted = [...new Set(ids)];
  const executed = (await knex('fivem_commands')
    .where('store_id', server.store_id)
    .whereIn('id', wanted)
    .where('status', 'pending')
    .where('lease_count', '>', 0)
    .update({ status: 'executed', executed_at: now, executed_by: server.id, leased_until: null })
    .returning('id')) as { id: number }[];
  const done = new Set(executed.map((r) => r.id));
  const rest = wanted.filter((id) => !done.has(id));
  const known = rest.length
    ? ((await knex('fivem_commands')
        .where('store_id', server.store_id)
        .whereIn('id', rest)
        .select('id', 'status')) as { id: number; status: string }[])
    : [];
  const statusOf = new Map(known.map((r) => [r.id, r.status]));
  const ignored = rest.map((id) => {
    const status = statusOf.get(id);
    const reason: IgnoredReason =
      status === undefined ? 'unknown' : status === 'pending' ? 'not_listed' : (status as IgnoredReason);
    return { id, reason };
  });
  return {
    executed: [...done].sort((a, b) => a - b),
    ignored,
    next_check: await nextCheck(knex, server.store_id, 0, settings, now),
  };
}
