import type { Knex } from 'knex';

/**
 * Why a merchant webhook delivery failed, for the delivery log (GET /shawarma/webhooks/{id}/deliveries):
 * `refused_address` (the SSRF guard), `http_status` (a non-2xx answer, in response_status), `timeout`,
 * `connection_error`. `test` marks a delivery sent by "send test event".
 *
 * checkouts.locale: the buyer's language at checkout (Accept-Language), so the delivery message of the
 * order speaks it; null (before, or no language asked for) is English.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('merchant_webhook_deliveries', (t) => {
    t.string('failure_reason', 30);
    t.boolean('test').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('checkouts', (t) => {
    t.string('locale', 2);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('locale');
  });
  await knex.schema.alterTable('merchant_webhook_deliveries', (t) => {
    t.dropColumn('failure_reason');
    t.dropColumn('test');
  });
}
