import type { Knex } from 'knex';

/** One e-mail as GET /__dev/outbox?to=ADDRESS shows it (docs/email.md, "Development outbox"). */
export interface OutboxEmail {
  to: string;
  channel: 'email';
  subject: string;
  /** The text part. */
  body: string | null;
  /** File names of the attachments. */
  attachments: string[];
  created_at: string;
}

/** What the `outbox` e-mail driver "sent" to `to`, newest first, at most `limit`. */
export async function outboxEmails(knex: Knex, to: string, limit: number): Promise<OutboxEmail[]> {
  const rows = await knex('emails')
    .where({ to: to.trim().toLowerCase(), driver: 'outbox', status: 'sent' })
    .orderBy([
      { column: 'sent_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select<
      { to: string; subject: string | null; body: string | null; attachments: string[]; sent_at: Date }[]
    >('to', 'subject', 'body', 'attachments', 'sent_at');
  return rows.map((r) => ({
    to: r.to,
    channel: 'email',
    subject: r.subject ?? '',
    body: r.body,
    attachments: r.attachments,
    created_at: r.sent_at.toISOString(),
  }));
}
