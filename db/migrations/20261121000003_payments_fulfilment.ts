import type { Knex } from 'knex';

/**
 * Payments and fulfilment: the sandbox provider's own store of payments (docs/operations.md), the sweep's
 * index, and the unique keys that make fulfilment safe to run twice (one license per unit of an order
 * item, one FiveM entry per command and unit).
 */
export async function up(knex: Knex): Promise<void> {
  // The sandbox provider's side of a hosted payment: what a real provider keeps on its own servers. The
  // platform reads it back through the sandbox adapter, as it would call a provider's API.
  await knex.schema.createTable('sandbox_payments', (t) => {
    t.string('id', 64).primary();
    t.integer('store_id').references('stores.id').onDelete('CASCADE');
    t.bigInteger('amount_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.string('description', 500).notNullable();
    t.string('return_url', 2000).notNullable();
    t.string('status', 20).notNullable().defaultTo('pending'); // pending, paid, failed
    // Set once with the customer's choice, so a redelivered webhook carries the same event id.
    t.string('event_id', 64);
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("?? in ('pending', 'paid', 'failed')", ['status'], 'sandbox_payments_status_check');
  });

  // The sweep looks for payments still waiting on a provider; only those rows are indexed.
  await knex.raw(
    "create index payments_open on payments (created_at) where status in ('pending', 'initiated')",
  );

  await knex.schema.alterTable('licenses', (t) => {
    t.integer('unit'); // 1..quantity for keys generated from an order item; null for imported licenses
  });
  await knex.raw(
    'create unique index licenses_order_item_unit on licenses (order_item_id, unit) where order_item_id is not null and unit is not null',
  );

  await knex.schema.alterTable('fivem_commands', (t) => {
    t.integer('product_command_id').references('product_fivem_commands.id').onDelete('SET NULL');
    t.integer('unit');
  });
  await knex.raw(
    'create unique index fivem_commands_item_command_unit on fivem_commands (order_item_id, product_command_id, unit) where order_item_id is not null and product_command_id is not null and unit is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fivem_commands_item_command_unit');
  await knex.schema.alterTable('fivem_commands', (t) => {
    t.dropColumn('unit');
    t.dropColumn('product_command_id');
  });
  await knex.raw('drop index if exists licenses_order_item_unit');
  await knex.schema.alterTable('licenses', (t) => {
    t.dropColumn('unit');
  });
  await knex.raw('drop index if exists payments_open');
  await knex.schema.dropTableIfExists('sandbox_payments');
}
