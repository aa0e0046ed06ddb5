import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { NotFoundError } from '../../errors';
import { type Actor, recordAudit } from '../audit';
import { iso } from '../../views';

/**
 * Merchant API tokens: issued by the operator (`npm run merchant-token -- create ...`, `npm run
 * store:create`) or by the merchant through the API (`POST /shawarma/tokens`). The token is shown once;
 * only its SHA-256 is kept, and the guard looks it up by that hash (a unique index hit: no stored secret is
 * compared byte by byte). The last four characters are kept so a list can tell tokens apart.
 *
 * A token's **scope** is `write` (every route) or `read` (GET only: every other method is a 403). Tokens
 * issued before scopes existed, and the fixture's tokens, are `write`.
 */

export type TokenScope = 'read' | 'write';
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'write'];

export interface MerchantTokenInfo {
  id: number;
  store_id: number;
  name: string;
  scope: TokenScope;
  /** The token's last four characters (null for tokens issued before they were kept). */
  last4: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function info(r: Record<string, unknown>): MerchantTokenInfo {
  return {
    id: Number(r.id),
    store_id: Number(r.store_id),
    name: String(r.name),
    scope: (r.scope as TokenScope) ?? 'write',
    last4: (r.last4 as string | null) ?? null,
    created_at: new Date(r.created_at as Date).toISOString(),
    last_used_at: iso(r.last_used_at as Date | null),
    revoked_at: iso(r.revoked_at as Date | null),
  };
}

export async function createMerchantToken(
  knex: Knex,
  storeId: number,
  name = 'default',
  scope: TokenScope = 'write',
): Promise<{ id: number; token: string; scope: TokenScope; last4: string }> {
  const store = await knex('stores').where('id', storeId).first('id');
  if (!store) throw new NotFoundError(`Store ${storeId} not found`);
  const token = randomToken(32, 'mt_');
  const last4 = token.slice(-4);
  const [row] = await knex('merchant_tokens')
    .insert({ store_id: storeId, name: name.slice(0, 100), token_hash: sha256(token), scope, last4 })
    .returning('id');
  return { id: Number((row as { id: number }).id), token, scope, last4 };
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
  return rows.map(info);
}

// ---------------------------------------------------------------- through the Merchant API

export const TOKEN_NOT_FOUND = 'Token not found';

export async function issueTokenFor(
  knex: Knex,
  actor: Actor,
  input: { name: string; scope: TokenScope },
): Promise<MerchantTokenInfo & { token: string }> {
  return knex.transaction(async (trx) => {
    const created = await createMerchantToken(trx, actor.storeId, input.name, input.scope);
    await recordAudit(
      trx,
      actor,
      'token.created',
      { type: 'token', id: created.id },
      {
        name: input.name,
        scope: input.scope,
        last4: created.last4,
      },
    );
    const row = await trx('merchant_tokens').where('id', created.id).first();
    return { ...info(row), token: created.token };
  });
}

/** A store's own token's name, or null when the store has no such token (the revoke confirmation names it). */
export async function merchantTokenName(
  knex: Knex,
  storeId: number,
  tokenId: number,
): Promise<string | null> {
  const row = await knex('merchant_tokens')
    .where({ id: tokenId, store_id: storeId })
    .first<{ name: string } | undefined>('name');
  return row ? String(row.name) : null;
}

/** A store's own token, revoked; another store's id is not found. Revoking twice answers the same. */
export async function revokeTokenOf(knex: Knex, actor: Actor, tokenId: number): Promise<MerchantTokenInfo> {
  return knex.transaction(async (trx) => {
    const row = await trx('merchant_tokens')
      .where({ id: tokenId, store_id: actor.storeId })
      .forUpdate()
      .first();
    if (!row) throw new NotFoundError(TOKEN_NOT_FOUND);
    if (!row.revoked_at) {
      await trx('merchant_tokens').where('id', tokenId).update({ revoked_at: new Date() });
      await recordAudit(
        trx,
        actor,
        'token.revoked',
        { type: 'token', id: tokenId },
        {
          name: row.name,
          last4: row.last4,
        },
      );
    }
    return info(await trx('merchant_tokens').where('id', tokenId).first());
  });
}
