import type { Knex } from 'knex';

/**
 * The buyer account's follow-ups (docs/account.md).
 *
 * - subscription_price_notices.accepted_at / accepted_by: the buyer accepted this announced price rise from
 *   their account ("Accept the new price"), and as which sign-in (`phone:…` / `email:…`). A new notice is a
 *   new row, so an acceptance never carries over to another price.
 * - subscription_card_updates: "Update the saved card": one card-saving session at the subscription's
 *   provider (a hosted page that saves a card token without charging). Only the SHA-256 of the provider's
 *   reference is kept (for Moyasar it is the card token itself); the token lands, sealed, on
 *   subscriptions.payment_token_encrypted. `status` pending, then saved or failed, once.
 * - sandbox_payments.card_only: the sandbox's own side: a card-saving session (no amount is charged).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscription_price_notices', (t) => {
    t.timestamp('accepted_at', { useTz: true });
    t.string('accepted_by', 300);
  });
  await knex.schema.createTable('subscription_card_updates', (t) => {
    t.increments('id');
    t.integer('subscription_id').notNullable().references('subscriptions.id').onDelete('CASCADE').index();
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('provider', 20).notNullable();
    t.string('provider_ref_hash', 64).notNullable();
    t.string('status', 10).notNullable().defaultTo('pending');
    t.string('requested_by', 300).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.unique(['provider', 'provider_ref_hash']);
    t.check("?? in ('pending', 'saved', 'failed')", ['status'], 'subscription_card_updates_status_check');
  });
  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.boolean('card_only').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.dropColumn('card_only');
  });
  await knex.schema.dropTableIfExists('subscription_card_updates');
  await knex.schema.alterTable('subscription_price_notices', (t) => {
    t.dropColumn('accepted_at');
    t.dropColumn('accepted_by');
  });
}
