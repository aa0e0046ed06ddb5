import type { Knex } from 'knex';
import { DashboardSession, MerchantUser } from '../../../db/models';
import { hmacSha256, randomToken, safeEqual, sha256 } from '../../crypto';
import { membershipsOf, Membership } from './accounts';

/**
 * Dashboard sessions: the cookie holds a random token (256 bits); the database keeps only its SHA-256,
 * so a stolen database copy signs no one in. A session is revocable one by one (sign out) or all of a
 * person's at once (sign out everywhere), and ends after SESSION_DAYS whatever happens.
 *
 * The form token (CSRF) is an HMAC of the session's token hash under the platform secret: every form of a
 * signed-in page carries it and every POST must return it; a page of another site can neither read it
 * nor (SameSite=Strict) send the cookie.
 */
export const SESSION_DAYS = 30;
/** last_seen_at is written at most this often per session (one UPDATE a minute, not one per page). */
const TOUCH_MS = 60_000;

export interface SignedIn {
  session: DashboardSession;
  user: MerchantUser;
  /** The store the session looks at, with this person's role in it; null when they belong to none. */
  membership: Membership | null;
  memberships: Membership[];
}

export async function createSession(
  knex: Knex,
  userId: number,
  storeId: number | null,
  userAgent: string | undefined,
): Promise<string> {
  const token = randomToken(32, 'mds_');
  const now = new Date();
  await DashboardSession.query(knex).insert({
    merchant_user_id: userId,
    store_id: storeId,
    token_hash: sha256(token),
    user_agent: userAgent ? userAgent.slice(0, 300) : null,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + SESSION_DAYS * 86_400_000),
  });
  return token;
}

/** The live session of this cookie token, with its person and store, or null. */
export async function findSession(knex: Knex, token: string | undefined): Promise<SignedIn | null> {
  if (!token || token.length > 200) return null;
  const session = await DashboardSession.query(knex)
    .findOne({ token_hash: sha256(token) })
    .whereNull('revoked_at')
    .where('expires_at', '>', new Date());
  if (!session) return null;
  const user = await MerchantUser.query(knex).findById(session.merchant_user_id);
  if (!user) return null;
  const memberships = await membershipsOf(knex, user.id);
  // The session's store, else the first the person belongs to (a removed membership moves them on).
  const membership = memberships.find((m) => m.store_id === session.store_id) ?? memberships[0] ?? null;
  if (Date.now() - session.last_seen_at.getTime() > TOUCH_MS) {
    await DashboardSession.query(knex)
      .patch({ last_seen_at: new Date(), store_id: membership?.store_id ?? null })
      .where({ id: session.id });
  }
  return { session, user, membership, memberships };
}

export async function switchStore(knex: Knex, signedIn: SignedIn, storeId: number): Promise<boolean> {
  if (!signedIn.memberships.some((m) => m.store_id === storeId)) return false;
  await DashboardSession.query(knex).patch({ store_id: storeId }).where({ id: signedIn.session.id });
  return true;
}

export async function revokeSession(knex: Knex, sessionId: number): Promise<void> {
  await DashboardSession.query(knex)
    .patch({ revoked_at: new Date() })
    .where({ id: sessionId })
    .whereNull('revoked_at');
}

/**
 * Every other session of this person ends (two-step sign-in just switched on: a session opened with the
 * phone code alone, perhaps by someone else, does not outlive it).
 */
export async function revokeOtherSessions(
  knex: Knex,
  userId: number,
  keepSessionId: number,
): Promise<number> {
  return DashboardSession.query(knex)
    .patch({ revoked_at: new Date() })
    .where({ merchant_user_id: userId })
    .whereNot({ id: keepSessionId })
    .whereNull('revoked_at');
}

/** Sign out everywhere: every session of this person, in every browser. */
export async function revokeAllSessions(knex: Knex, userId: number): Promise<number> {
  return DashboardSession.query(knex)
    .patch({ revoked_at: new Date() })
    .where({ merchant_user_id: userId })
    .whereNull('revoked_at');
}

export function formToken(appSecret: string, session: Pick<DashboardSession, 'token_hash'>): string {
  return hmacSha256(appSecret, `dashboard-form:${session.token_hash}`);
}

/** `previous`: earlier secrets (APP_SECRET_PREVIOUS), so a form opened before a rotation still posts. */
export function formTokenMatches(
  appSecret: string,
  session: Pick<DashboardSession, 'token_hash'>,
  given: unknown,
  previous: readonly string[] = [],
): boolean {
  if (typeof given !== 'string' || given.length === 0) return false;
  return [appSecret, ...previous].some((secret) => safeEqual(formToken(secret, session), given));
}

/** Ended sessions are kept this long after expiry or sign-out (what "signed out" pages can still explain). */
const SESSION_RETENTION_MS = 7 * 86_400_000;
const PURGE_BATCH = 1_000;

/**
 * Maintenance task `purge-dashboard-sessions`: deletes sessions that expired or were revoked more than a
 * week ago, 1,000 rows a statement until none is left (safe to run twice, or at once on two workers), and
 * two-step sign-in challenges a day past their expiry.
 */
export async function purgeDashboardSessions(
  knex: Knex,
  now: Date = new Date(),
): Promise<{ deleted: number }> {
  const cutoff = new Date(now.getTime() - SESSION_RETENTION_MS);
  // Two-step sign-in challenges live minutes (docs/dashboard.md): any a day past its expiry goes too.
  await knex('dashboard_sign_in_challenges')
    .where('expires_at', '<', new Date(now.getTime() - 86_400_000))
    .delete();
  let deleted = 0;
  for (;;) {
    const n = await knex('dashboard_sessions')
      .whereIn(
        'id',
        knex('dashboard_sessions')
          .select('id')
          .where((q) => q.where('expires_at', '<', cutoff).orWhere('revoked_at', '<', cutoff))
          .limit(PURGE_BATCH),
      )
      .delete();
    deleted += n;
    if (n < PURGE_BATCH) return { deleted };
  }
}
