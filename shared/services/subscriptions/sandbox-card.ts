import type { Knex } from 'knex';

/**
 * A subscription's saved sandbox card (still encrypted), or null when it has none: the development route that
 * makes the sandbox decline its next charges (docs/subscriptions.md) acts on sandbox cards only.
 */
export async function sandboxCardOf(knex: Knex, subscriptionId: number): Promise<string | null> {
  const sub = await knex('subscriptions')
    .where('id', subscriptionId)
    .first<{ provider: string | null; payment_token_encrypted: string | null } | undefined>(
      'provider',
      'payment_token_encrypted',
    );
  if (!sub || sub.provider !== 'sandbox' || !sub.payment_token_encrypted) return null;
  return sub.payment_token_encrypted;
}
