import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { NotFoundError } from '../../errors';

/**
 * Merchant API tokens, issued by the platform operator (`npm run merchant-token -- create ...`).
 * The token is shown once; only its SHA-256 is kept, and the guard looks it up by that hash (a unique
 * index hit: no stored secret is compared byte by byte).
 */

export interface MerchantTokenInfo {
  id: number;
  store_id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export async function createMerchantToken(
  knex: Knex,
  storeId: number,
  name = 'default',
): Promise<{ id: number; token: string }> {
  const store = await knex('stores').where('id', storeId).first('id');
  if (!store) throw new NotFoundError(`Store ${storeId} not found`);
  const token = randomToken(32, 'mt_');
  const [row] = await knex('merchant_tokens')
    .insert({ store_id: storeId, name: name.slice(0, 100), token_hash: sha256(token) })
    .returning('id');
  return { id: Number((row as { id: number }).id), token };
}

/** Revokes by id or by the token itself; answers whether a live token was revoked now. */
export async function revokeMerchantToken(
  knex: Knex,
  which: { id: number } | { token: string },
): Promise<boolean> {
  const query = knex('merchant_tokens').whereNull('revoked_at');
  if ('id' in which) query.where('id', which.id);
  else query.where('token_hash', sha256(which.token));
  return (await query.update({ revoked_at: new Date() })) > 0;
}

export async function listMerchantTokens(knex: Knex, storeId: number): Promise<MerchantTokenInfo[]> {
  const rows = await knex('merchant_tokens').where('store_id', storeId).orderBy('id');
  return rows.map((r) => ({
    id: Number(r.id),
    store_id: Number(r.store_id),
    name: r.name,
    created_at: new Date(r.created_at).toISOString(),
    last_used_at: iso(r.last_used_at),
    revoked_at: iso(r.revoked_at),
  }));
}
