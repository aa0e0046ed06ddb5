import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { StoreRole } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import { createSession, formToken } from '../../../shared/services/staff/sessions';

/** A signed-in dashboard person: the session cookie and the form token every POST carries. */
export interface DashboardLogin {
  userId: number;
  cookie: string;
  csrf: string;
}

/** A person with `role` in the store, signed in (the session a confirmed sign-in code would make). */
export async function dashboardLogin(
  knex: Knex,
  appSecret: string,
  storeId: number,
  role: StoreRole,
  /** A national number from the test file's own range; a random one otherwise. */
  phone = `5${String(crypto.randomInt(100_000_000)).padStart(8, '0')}`,
): Promise<DashboardLogin> {
  const [user] = await knex('merchant_users')
    .insert({ name: `Staff ${randomToken(3)}`, country_code: '966', phone, e164: `966${phone}` })
    .returning('id');
  const userId = Number((user as { id: number }).id);
  await knex('store_members').insert({ store_id: storeId, merchant_user_id: userId, role });
  const token = await createSession(knex, userId, storeId, 'test');
  return {
    userId,
    cookie: `matjar_merchant=${token}`,
    csrf: formToken(appSecret, { token_hash: sha256(token) }),
  };
}

/** A urlencoded dashboard form with its form token. */
export function dashboardForm(
  login: DashboardLogin,
  fields: Record<string, string | string[]>,
): { method: string; headers: Record<string, string>; body: string } {
  const body = new URLSearchParams({ _csrf: login.csrf });
  for (const [key, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) body.append(key, v);
  }
  return {
    method: 'POST',
    headers: { cookie: login.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  };
}
