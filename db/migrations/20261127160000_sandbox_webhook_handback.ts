import type { Knex } from 'knex';

/**
 * The sandbox provider's webhook deliveries handed back at shutdown (docs/operations.md, "Stopping"): a
 * delivery still being tried (or waiting to retry) when the web process stops is written here, and the
 * next web process to start delivers it. `body` is the event exactly as it is signed and sent; the
 * signature is computed again when it goes out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_webhook_handbacks', (t) => {
    t.bigIncrements('id');
    t.string('event_id', 64).notNullable();
    t.text('url').notNullable();
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sandbox_webhook_handbacks');
}
