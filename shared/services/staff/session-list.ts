import type { Knex } from 'knex';

/** One of a person's live dashboard sessions, as the security page lists it. */
export interface SessionRow {
  id: number;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/** The person's live sessions (not revoked, not expired), the latest seen first. */
export async function liveSessions(knex: Knex, userId: number): Promise<SessionRow[]> {
  return knex('dashboard_sessions')
    .where({ merchant_user_id: userId })
    .whereNull('revoked_at')
    .where('expires_at', '>', new Date())
    .orderBy([
      { column: 'last_seen_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select<SessionRow[]>('id', 'user_agent', 'created_at', 'last_seen_at', 'expires_at');
}

/** Ends one of the person's own sessions ("keep me signed in" on a lost device); false if not theirs. */
export async function revokeOwnSession(knex: Knex, userId: number, sessionId: number): Promise<boolean> {
  const n = await knex('dashboard_sessions')
    .where({ id: sessionId, merchant_user_id: userId })
    .whereNull('revoked_at')
    .update({ revoked_at: new Date() });
  return n > 0;
}
