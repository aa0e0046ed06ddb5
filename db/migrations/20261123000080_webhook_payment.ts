import type { Knex } from 'knex';

/**
 * The payment a stored webhook event is about, found once by the receiver (which had to find it to verify
 * the signature with that store's credentials): the worker reads it instead of looking the payment up
 * again. Null for rows stored before this column existed; the worker then finds it from the payload.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.integer('payment_id').references('id').inTable('payments').onDelete('SET NULL');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_events', (t) => {
    t.dropColumn('payment_id');
  });
}
