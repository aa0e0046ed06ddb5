import type { Knex } from 'knex';

/** What an order shows of its e-mails: a bounce, with the server's answer, included. */
export interface OrderEmail {
  purpose: string;
  to: string;
  status: 'queued' | 'sending' | 'sent' | 'bounced' | 'failed';
  error: string | null;
  created_at: string;
  sent_at: string | null;
}

export async function emailsForOrder(knex: Knex, orderId: number): Promise<OrderEmail[]> {
  const rows = await knex('emails').where({ order_id: orderId }).orderBy('id').select<
    {
      purpose: string;
      to: string;
      status: OrderEmail['status'];
      error_code: string | null;
      error_message: string | null;
      created_at: Date;
      sent_at: Date | null;
    }[]
  >('purpose', 'to', 'status', 'error_code', 'error_message', 'created_at', 'sent_at');
  return rows.map((r) => ({
    purpose: r.purpose,
    to: r.to,
    status: r.status,
    error: r.error_message
      ? `${r.error_code ? `${r.error_code} ` : ''}${r.error_message}`.slice(0, 500)
      : null,
    created_at: r.created_at.toISOString(),
    sent_at: r.sent_at ? r.sent_at.toISOString() : null,
  }));
}
