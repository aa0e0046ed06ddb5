import type { Knex } from 'knex';
import { FivemServer, Store } from '../../../db/models';
import { randomToken, safeEqual, sha256 } from '../../crypto';
import { InvalidError, NotFoundError } from '../../errors';

/** Prefix of the secrets the platform issues; fixtures may load secrets of any shape. */
export const FIVEM_SECRET_PREFIX = 'fvm_';
/** Longer than any secret the platform issues or a fixture may hold; longer values are refused unread. */
const MAX_SECRET_LENGTH = 200;
/** last_seen_at is written at most this often per server, so polling does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export interface IssuedSecret {
  id: number;
  storeId: number;
  name: string;
  /** Shown once: only its SHA-256 is kept. */
  secret: string;
}

/**
 * Registers a game server for a store and issues its secret. A store may have several (one per game
 * server), each named and revocable on its own.
 */
export async function createFivemServer(knex: Knex, storeId: number, name: string): Promise<IssuedSecret> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 100) throw new InvalidError('The name must be 1 to 100 characters');
  const store = await Store.query(knex).findById(storeId);
  if (!store) throw new NotFoundError(`Store ${storeId} does not exist`);
  const secret = randomToken(32, FIVEM_SECRET_PREFIX);
  const row = await FivemServer.query(knex).insertAndFetch({
    store_id: storeId,
    name: trimmed,
    secret_hash: sha256(secret),
    last4: secret.slice(-4),
  });
  return { id: row.id, storeId, name: row.name, secret };
}

/**
 * Revokes a store's game-server secrets, by id or by name (every live secret of that name). Answers the
 * ids revoked; revoking again revokes nothing.
 */
export async function revokeFivemServers(
  knex: Knex,
  storeId: number,
  which: { id: number } | { name: string },
  now: Date = new Date(),
): Promise<number[]> {
  const query = FivemServer.query(knex)
    .patch({ revoked_at: now })
    .where('store_id', storeId)
    .whereNull('revoked_at')
    .returning('id');
  if ('id' in which) void query.where('id', which.id);
  else void query.where('name', which.name);
  const rows = (await query) as unknown as FivemServer[];
  return rows.map((r) => r.id);
}

export async function listFivemServers(knex: Knex, storeId: number): Promise<FivemServer[]> {
  return FivemServer.query(knex).where('store_id', storeId).orderBy('id');
}

/**
 * The live game server a presented secret belongs to, with its store, or null. The lookup is by SHA-256
 * (a unique-index hit), and the stored digest is compared again in constant time, so nothing about a
 * stored secret leaks through timing. Merchant tokens and embed keys are other tables: they never match.
 */
export async function authenticateFivemSecret(
  knex: Knex,
  presented: string,
  now: Date = new Date(),
): Promise<(FivemServer & { store: Store }) | null> {
  if (!presented || presented.length > MAX_SECRET_LENGTH) return null;
  const digest = sha256(presented);
  const server = await FivemServer.query(knex).findOne({ secret_hash: digest }).whereNull('revoked_at');
  if (!server || !safeEqual(server.secret_hash, digest)) return null;
  const store = await Store.query(knex).findById(server.store_id);
  if (!store) return null;
  if (!server.last_seen_at || now.getTime() - server.last_seen_at.getTime() > TOUCH_EVERY_MS) {
    await FivemServer.query(knex).patch({ last_seen_at: now }).where('id', server.id);
  }
  return Object.assign(server, { store });
}
