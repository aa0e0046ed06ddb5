import type { Knex } from 'knex';

/**
 * E-mail to buyers (docs/email.md).
 * - emails: one row per e-mail that must go out once, unique on (purpose, key, address): a second call for
 *   the same event finds the row and queues nothing. `payload` is the template's data, sealed with the
 *   platform secret (it carries code and license keys). Once sent, `subject` and `attachments` (file
 *   names) are kept; `body` (the text part) only for the `outbox` driver, which GET /__dev/outbox reads.
 *   `status`: queued (the job waits, or waits for its next try after a 4xx), sending (an SMTP attempt is
 *   under way or was interrupted), sent, bounced (the server answered 5xx: a hard bounce, never retried),
 *   failed (retries spent on 4xx or connection errors). `order_id` lets the order show a bounce.
 * - stores.support_email: the store's support address, the `Reply-To` of its e-mails.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('emails', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').references('stores.id').onDelete('CASCADE');
    t.integer('order_id').references('orders.id').onDelete('SET NULL');
    t.string('purpose', 40).notNullable();
    t.string('key', 500).notNullable();
    t.string('to', 254).notNullable();
    t.string('locale', 2).notNullable();
    t.string('template', 40).notNullable();
    t.text('payload').notNullable();
    t.string('driver', 10).notNullable();
    t.string('status', 10).notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('subject', 300);
    t.text('body');
    t.specificType('attachments', 'text[]').notNullable().defaultTo('{}');
    t.string('message_id', 300);
    t.string('error_code', 10);
    t.string('error_message', 500);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('sent_at', { useTz: true });
    t.unique(['purpose', 'key', 'to'], { indexName: 'emails_once_per_event' });
    t.check("?? in ('ar', 'en')", ['locale'], 'emails_locale_check');
    t.check("?? in ('smtp', 'outbox')", ['driver'], 'emails_driver_check');
    t.check("?? in ('queued', 'sending', 'sent', 'bounced', 'failed')", ['status'], 'emails_status_check');
  });
  await knex.raw('create index emails_outbox_to on emails ("to", created_at desc, id desc)');
  await knex.raw('create index emails_order on emails (order_id) where order_id is not null');
  await knex.schema.alterTable('stores', (t) => {
    t.string('support_email', 254);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('support_email');
  });
  await knex.schema.dropTableIfExists('emails');
}
