import type { Knex } from 'knex';
import { randomToken } from './crypto';

/**
 * The platform secret keys every HMAC (OTP codes) and at-rest encryption. APP_SECRET wins when set; without
 * it one is generated once and kept in the database, so every process of one deployment shares it and a
 * fresh install is safe without extra configuration.
 */
export async function resolveAppSecret(knex: Knex, fromEnv?: string): Promise<string> {
  if (fromEnv) return fromEnv;
  await knex('platform_settings')
    .insert({ key: 'app_secret', value: randomToken(48) })
    .onConflict('key')
    .ignore();
  const row = await knex('platform_settings').where({ key: 'app_secret' }).first('value');
  return String(row.value);
}
