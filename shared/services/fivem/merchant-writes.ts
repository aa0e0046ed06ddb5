import type { Knex } from 'knex';
import type { FivemServer } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { type Actor, recordAudit } from '../audit';
import { createFivemServer } from './servers';

/**
 * The Merchant API's game-server writes (docs/merchant.md): each write and its audit row are one
 * transaction, and each answers the server's row as stored.
 */

export const FIVEM_SERVER_NOT_FOUND = 'Game server not found';

export async function registerFivemServer(
  knex: Knex,
  actor: Actor,
  name: string,
): Promise<{ row: FivemServer; secret: string }> {
  return knex.transaction(async (trx) => {
    const issued = await createFivemServer(trx, actor.storeId, name);
    await recordAudit(
      trx,
      actor,
      'fivem_server.created',
      { type: 'fivem_server', id: issued.id },
      { name: issued.name },
    );
    const row = await trx('fivem_servers').where('id', issued.id).first<FivemServer>();
    return { row, secret: issued.secret };
  });
}

/** A store's own game server, revoked; another store's id is not found. Revoking twice answers the same. */
export async function revokeFivemServer(knex: Knex, actor: Actor, serverId: number): Promise<FivemServer> {
  return knex.transaction(async (trx) => {
    const row = await trx('fivem_servers')
      .where({ id: serverId, store_id: actor.storeId })
      .forUpdate()
      .first();
    if (!row) throw new NotFoundError(FIVEM_SERVER_NOT_FOUND);
    if (!row.revoked_at) {
      await trx('fivem_servers').where('id', serverId).update({ revoked_at: new Date() });
      await recordAudit(
        trx,
        actor,
        'fivem_server.revoked',
        { type: 'fivem_server', id: serverId },
        { name: row.name },
      );
    }
    return trx('fivem_servers').where('id', serverId).first<FivemServer>();
  });
}
