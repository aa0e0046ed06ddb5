import type { Knex } from 'knex';
import type { Payment } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { decryptCredentials } from '../../providers/credentials';
import type { ProviderCredentials } from '../../providers/types';

/**
 * The store's credentials for the method and provider a payment was made with. Decrypted here, used for
 * the one provider call or signature check at hand, never stored or logged.
 */
export async function credentialsFor(
  ctx: { knex: Knex; cipher: Cipher },
  payment: Pick<Payment, 'store_id' | 'method' | 'provider'>,
): Promise<ProviderCredentials> {
  const row = await ctx
    .knex('store_payment_methods')
    .where({ store_id: payment.store_id, method: payment.method, provider: payment.provider })
    .first<{ credentials_encrypted: string | null } | undefined>('credentials_encrypted');
  return decryptCredentials(ctx.cipher, row?.credentials_encrypted ?? null);
}
