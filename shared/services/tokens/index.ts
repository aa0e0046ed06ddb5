import type { Knex } from 'knex';
import { Customer, CustomerAccessToken, MerchantToken, Store } from '../../../db/models';
import { randomToken, sha256 } from '../../crypto';

/**
 * Bearer tokens are opaque random strings; only their SHA-256 is stored. A lookup by hash is a unique-index
 * hit, so no stored secret is ever compared byte by byte.
 *
 * Customer tokens are bound to one store and carry abilities. Embed tokens carry exactly
 * EMBED_ABILITIES; storefront tokens carry STOREFRONT_ABILITIES. Each guard demands its own, so neither
 * works on the other's endpoints.
 */
export const EMBED_ABILITIES = ['embed:checkout', 'embed:validate'] as const;
export const STOREFRONT_ABILITIES = ['storefront'] as const;
export type TokenKind = 'embed' | 'storefront';

/** Embed tokens live 30 days (a saved widget session); storefront tokens 90 days. */
export const TOKEN_TTL_SECONDS: Record<TokenKind, number> = { embed: 30 * 86400, storefront: 90 * 86400 };
const PREFIX: Record<TokenKind, string> = { embed: 'cet_', storefront: 'cst_' };

export async function issueCustomerToken(
  customer: Pick<Customer, 'id' | 'store_id'>,
  kind: TokenKind,
  /** The caller's connection or transaction: the token exists once it commits. */
  trx: Knex,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32, PREFIX[kind]);
  const expiresAt = new Date(Date.now() + TOKEN_TTL_SECONDS[kind] * 1000);
  await CustomerAccessToken.query(trx).insert({
    customer_id: customer.id,
    store_id: customer.store_id,
    token_hash: sha256(token),
    abilities: kind === 'embed' ? [...EMBED_ABILITIES] : [...STOREFRONT_ABILITIES],
    name: kind,
    expires_at: expiresAt,
  });
  return { token, expiresAt };
}

/**
 * The live (unexpired, unrevoked) token with its customer, or null. A token whose customer's phone is
 * blocked (in the token's store or on the whole platform) is dead too, however the block was written:
 * blocking a phone ends its sessions at once.
 */
export async function findCustomerToken(
  knex: Knex,
  token: string,
): Promise<(CustomerAccessToken & { customer: Customer }) | null> {
  if (!token || token.length > 200) return null;
  const row = await CustomerAccessToken.query(knex)
    .findOne({ token_hash: sha256(token) })
    .whereNull('revoked_at')
    .where('expires_at', '>', new Date())
    .whereNotExists(
      knex('blocked_phones')
        .join('customers', 'customers.e164', 'blocked_phones.e164')
        .whereRaw('customers.id = customer_access_tokens.customer_id')
        .where((q) =>
          q
            .whereRaw('blocked_phones.store_id = customer_access_tokens.store_id')
            .orWhereNull('blocked_phones.store_id'),
        ),
    )
    .withGraphFetched('customer');
  if (!row || !row.customer) return null;
  return row as CustomerAccessToken & { customer: Customer };
}

/** Signs one token out (POST auth/logout): it answers 401 from now on. */
export async function revokeCustomerToken(knex: Knex, tokenId: number): Promise<void> {
  await CustomerAccessToken.query(knex)
    .patch({ revoked_at: new Date() })
    .where('id', tokenId)
    .whereNull('revoked_at');
}

/**
 * Revokes every live token of the customers with phone `e164`: in one store, or (storeId null, a
 * platform-wide block) in every store. Whoever blocks a phone calls it in the same transaction.
 */
export async function revokePhoneTokens(knex: Knex, storeId: number | null, e164: string): Promise<number> {
  const customers = knex('customers').select('id').where('e164', e164);
  if (storeId !== null) customers.where('store_id', storeId);
  return CustomerAccessToken.query(knex)
    .patch({ revoked_at: new Date() })
    .whereIn('customer_id', customers)
    .whereNull('revoked_at');
}

export function hasAbilities(
  token: Pick<CustomerAccessToken, 'abilities'>,
  required: readonly string[],
): boolean {
  return required.every((ability) => token.abilities.includes(ability));
}

export async function issueMerchantToken(
  knex: Knex,
  storeId: number,
  token: string = randomToken(32, 'mt_'),
  name = 'default',
): Promise<string> {
  await MerchantToken.query(knex).insert({
    store_id: storeId,
    token_hash: sha256(token),
    name,
    scope: 'write',
    last4: token.slice(-4),
  });
  return token;
}

export async function findMerchantToken(
  knex: Knex,
  token: string,
): Promise<(MerchantToken & { store: Store }) | null> {
  if (!token || token.length > 200) return null;
  const row = await MerchantToken.query(knex)
    .findOne({ token_hash: sha256(token) })
    .whereNull('revoked_at')
    .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', new Date()))
    .withGraphFetched('store');
  if (!row || !row.store) return null;
  return row as MerchantToken & { store: Store };
}

/** Reads `Authorization: Bearer <token>`; null when absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
