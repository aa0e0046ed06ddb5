import type { Knex } from 'knex';

/**
 * One row per customer message that must go out once (docs/outages.md): written before the message is
 * sent, under a key unique to that message (an OTP session's code version, an order's delivered items).
 * A retried job finds the row and does not send again. The outbox driver writes it in the same
 * transaction as the message itself; the Twilio driver marks it `sent` once Twilio accepted the message.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('message_sends', (t) => {
    t.text('key').primary();
    t.string('purpose', 30).notNullable();
    t.string('status', 20).notNullable(); // sending (claimed, provider call under way or interrupted), sent
    t.integer('attempts').notNullable().defaultTo(1);
    t.integer('outbound_message_id').references('outbound_messages.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("?? in ('sending', 'sent')", ['status'], 'message_sends_status_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('message_sends');
}
