import type { Knex } from 'knex';
import { CustomerAccessToken, MerchantToken } from '../../../db/models';

/**
 * A token's last use, written by the bearer guards at most once a window (api/middleware/customer-auth.ts,
 * needsTouch), so a busy client does not write on every request.
 */

export async function touchMerchantToken(knex: Knex, tokenId: number, now: Date = new Date()): Promise<void> {
  await MerchantToken.query(knex).patch({ last_used_at: now }).where('id', tokenId);
}

export async function touchCustomerToken(knex: Knex, tokenId: number, now: Date = new Date()): Promise<void> {
  await CustomerAccessToken.query(knex).patch({ last_used_at: now }).where('id', tokenId);
}
