import type { Knex } from 'knex';
import { hmacSha256, randomToken, safeEqual, sha256 } from '../../crypto';

/**
 * The buyer's account sessions (docs/account.md). A buyer is the identity they signed in with, a phone or an
 * e-mail address, never a row of `customers` (those are per store). As the dashboard's sessions
 * (shared/services/staff/sessions.ts): the cookie holds a random 256-bit token and the database its
 * SHA-256; revocable one by one or every session of the identity at once; the form token (CSRF) is an
 * HMAC of the token hash under the platform secret.
 */
export const BUYER_SESSION_DAYS = 30;
const TOUCH_MS = 60_000;

export type IdentityKind = 'phone' | 'email';

export interface BuyerIdentity {
  kind: IdentityKind;
  /** The E.164 digits of a phone, or an e-mail address in lower case. */
  value: string;
}

export interface BuyerSession {
  id: number;
  token_hash: string;
  identity: BuyerIdentity;
}

/** How a review or a log names an identity: `phone:966500000001`, `email:sara@example.com`. */
export const identityKey = (identity: BuyerIdentity): string => `${identity.kind}:${identity.value}`;

export async function createBuyerSession(
  knex: Knex,
  identity: BuyerIdentity,
  userAgent: string | undefined,
): Promise<string> {
  const token = randomToken(32, 'bas_');
  const now = new Date();
  await knex('buyer_sessions').insert({
    identity_kind: identity.kind,
    identity: identity.value,
    token_hash: sha256(token),
    user_agent: userAgent ? userAgent.slice(0, 300) : null,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + BUYER_SESSION_DAYS * 86_400_000),
  });
  return token;
}

export async function findBuyerSession(knex: Knex, token: string | undefined): Promise<BuyerSession | null> {
  if (!token || token.length > 200) return null;
  const row = (await knex('buyer_sessions')
    .where({ token_hash: sha256(token) })
    .whereNull('revoked_at')
    .where('expires_at', '>', new Date())
    .first('id', 'token_hash', 'identity_kind', 'identity', 'last_seen_at')) as
    | { id: number; token_hash: string; identity_kind: IdentityKind; identity: string; last_seen_at: Date }
    | undefined;
  if (!row) return null;
  if (Date.now() - row.last_seen_at.getTime() > TOUCH_MS) {
    await knex('buyer_sessions').where({ id: row.id }).update({ last_seen_at: new Date() });
  }
  return {
    id: row.id,
    token_hash: row.token_hash,
    identity: { kind: row.identity_kind, value: row.identity },
  };
}

export async function revokeBuyerSession(knex: Knex, id: number): Promise<void> {
  await knex('buyer_sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: new Date() });
}

/** Sign out everywhere: every session of this phone (or address), in every browser. */
export async function revokeIdentitySessions(knex: Knex, identity: BuyerIdentity): Promise<number> {
  return knex('buyer_sessions')
    .where({ identity_kind: identity.kind, identity: identity.value })
    .whereNull('revoked_at')
    .update({ revoked_at: new Date() });
}

export function buyerFormToken(appSecret: string, session: Pick<BuyerSession, 'token_hash'>): string {
  return hmacSha256(appSecret, `account-form:${session.token_hash}`);
}

export function buyerFormTokenMatches(
  appSecret: string,
  session: Pick<BuyerSession, 'token_hash'>,
  given: unknown,
  previous: readonly string[] = [],
): boolean {
  if (typeof given !== 'string' || given.length === 0) return false;
  return [appSecret, ...previous].some((secret) => safeEqual(buyerFormToken(secret, session), given));
}

/** Ended buyer sessions are kept a week after expiry or sign-out, as the dashboard's. */
const RETENTION_MS = 7 * 86_400_000;

/**
 * Part of the maintenance task `purge-dashboard-sessions`: buyer sessions that ended more than a week ago
 * and sign-in links a day past their expiry, 1,000 rows a statement (safe to run twice, or on two workers).
 */
export async function purgeBuyerSessions(knex: Knex, now: Date = new Date()): Promise<{ deleted: number }> {
  const cutoff = new Date(now.getTime() - RETENTION_MS);
  await knex('buyer_email_links')
    .where('expires_at', '<', new Date(now.getTime() - 86_400_000))
    .delete();
  let deleted = 0;
  for (;;) {
    const n = await knex('buyer_sessions')
      .whereIn(
        'id',
        knex('buyer_sessions')
          .select('id')
          .where((q) => q.where('expires_at', '<', cutoff).orWhere('revoked_at', '<', cutoff))
          .limit(1_000),
      )
      .delete();
    deleted += n;
    if (n < 1_000) return { deleted };
  }
}
