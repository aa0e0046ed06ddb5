import type { Knex } from 'knex';
import { randomToken } from '../../crypto';
import { ValidationError } from '../../errors';
import { SUPPORTED_CURRENCIES } from '../../currency';
import { parsePhone, type Phone } from '../../phone';
import { syncFixtureOwner } from '../staff/accounts';
import { operatorActor, recordAudit } from '../audit';
import { createMerchantToken } from '../tokens/merchant';

/**
 * A new store for a merchant, made by the operator (`npm run store:create`): the store with a fresh embed
 * key, its owner (who signs in to the merchant dashboard with that phone), and a first write token. One transaction: a refused input writes nothing.
 */

export interface NewStoreInput {
  name: string;
  ownerPhone: string;
  ownerCountryCode: string;
  ownerName?: string;
  currency: string;
  plan: 'paid' | 'free';
  locale: 'ar' | 'en';
}

export interface NewStore {
  store_id: number;
  name: string;
  embed_key: string;
  token: string;
  token_id: number;
  owner: { name: string; country_code: string; phone: string };
}

export function checkNewStore(input: NewStoreInput): Phone {
  const errors: Record<string, string[]> = {};
  const name = input.name.trim();
  if (name === '' || name.length > 200) errors.name = ['must be 1 to 200 characters'];
  if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(input.currency))
    errors.currency = ['must be a currency the platform knows (ISO 4217 code, such as SAR)'];
  const phone = parsePhone(input.ownerCountryCode, input.ownerPhone);
  if (!phone) errors['owner-phone'] = ['must be a valid phone number for the owner’s country code'];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return phone!;
}

export async function createStoreForOwner(knex: Knex, input: NewStoreInput): Promise<NewStore> {
  const phone = checkNewStore(input);
  return knex.transaction(async (trx) => {
    const embedKey = randomToken(24, 'emb_pk_');
    const [row] = await trx('stores')
      .insert({
        name: input.name.trim(),
        currency: input.currency,
        plan: input.plan,
        locale: input.locale,
        embed_key: embedKey,
      })
      .returning('id');
    const storeId = Number((row as { id: number }).id);
    const owner = {
      name: (input.ownerName ?? '').trim(),
      country_code: phone.countryCode,
      phone: phone.national,
    };
    // The owner signs in to the merchant dashboard (/merchant) with this phone.
    await syncFixtureOwner(trx, storeId, owner);
    const token = await createMerchantToken(trx, storeId, 'first token', 'write');
    await recordAudit(
      trx,
      operatorActor(storeId),
      'store.created',
      { type: 'store', id: storeId },
      {
        name: input.name.trim(),
        currency: input.currency,
        plan: input.plan,
        owner,
        first_token_last4: token.last4,
      },
    );
    return {
      store_id: storeId,
      name: input.name.trim(),
      embed_key: embedKey,
      token: token.token,
      token_id: token.id,
      owner,
    };
  });
}
