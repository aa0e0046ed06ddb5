import type { Knex } from 'knex';
import type { DeliveryResult, Messenger, OutgoingMessage } from './types';

/**
 * Development driver: "delivers" by writing the message to the outbound_messages table, where
 * GET /__dev/outbox shows it. WhatsApp-first messages are recorded as WhatsApp, as a real send would be.
 */
export class OutboxMessenger implements Messenger {
  readonly driver = 'outbox' as const;

  constructor(private readonly knex: Knex) {}

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    const channel = message.route === 'whatsapp_first' ? 'whatsapp' : 'sms';
    const [row] = await this.knex('outbound_messages')
      .insert({
        store_id: message.storeId ?? null,
        to: message.to,
        channel,
        driver: 'outbox',
        body: message.body,
        purpose: message.purpose,
        status: 'sent',
      })
      .returning('id');
    return { channel, providerMessageId: `outbox-${row.id}` };
  }
}
