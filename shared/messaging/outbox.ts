import type { Knex } from 'knex';
import type { DeliveryResult, Messenger, OutgoingMessage } from './types';

/**
 * Development driver: "delivers" by writing the message to the outbound_messages table, where
 * GET /__dev/outbox shows it. WhatsApp-first messages are recorded as WhatsApp, as a real send would be.
 * The send record (message_sends, by key) and the message are one transaction, so a message with a key
 * is delivered exactly once however often its job runs or crashes.
 */
export class OutboxMessenger implements Messenger {
  readonly driver = 'outbox' as const;

  constructor(private readonly knex: Knex) {}

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    const channel = message.route === 'whatsapp_first' ? 'whatsapp' : 'sms';
    const { key } = message;
    if (key === undefined) return this.result(channel, await this.write(this.knex, message, channel));
    return this.knex.transaction(async (trx) => {
      const claimed = await trx('message_sends')
        .insert({ key, purpose: message.purpose, status: 'sent' })
        .onConflict('key')
        .ignore()
        .returning('key');
      if (claimed.length === 0) return { channel, providerMessageId: null, duplicate: true };
      const id = await this.write(trx, message, channel);
      await trx('message_sends').where({ key }).update({ outbound_message_id: id });
      return this.result(channel, id);
    });
  }

  private result(channel: 'whatsapp' | 'sms', id: number): DeliveryResult {
    return { channel, providerMessageId: `outbox-${id}` };
  }

  private async write(knex: Knex, message: OutgoingMessage, channel: 'whatsapp' | 'sms'): Promise<number> {
    const [row] = await knex('outbound_messages')
      .insert({
        store_id: message.storeId ?? null,
        to: message.to,
        channel,
        driver: 'outbox',
        body: message.body,
        purpose: message.purpose,
        status: 'sent',
      })
      .returning<{ id: number }[]>('id');
    return row.id;
  }
}

/** The newest messages the outbox driver wrote to one number, newest first (GET /__dev/outbox). */
export async function outboxMessages(
  knex: Knex,
  to: string,
  limit: number,
): Promise<{ to: string; channel: string; body: string | null; created_at: Date }[]> {
  return knex('outbound_messages')
    .where({ to, driver: 'outbox' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .select<{ to: string; channel: string; body: string | null; created_at: Date }[]>(
      'to',
      'channel',
      'body',
      'created_at',
    );
}
