import crypto from 'node:crypto';
import type { Knex } from 'knex';

const KEY = 'instance_id';

/**
 * This database's own id, made once and kept in `platform_settings`: every process on the database shares
 * it, and a database created afresh gets a new one. Queue job ids carry it (shared/queues), so a fresh
 * database beside an old Redis never collides with the old queue state.
 */
export async function resolveInstanceId(knex: Knex): Promise<string> {
  await knex('platform_settings')
    .insert({ key: KEY, value: crypto.randomBytes(6).toString('hex') })
    .onConflict('key')
    .ignore();
  const row = await knex('platform_settings').where({ key: KEY }).first<{ value: string }>('value');
  return String(row.value);
}
