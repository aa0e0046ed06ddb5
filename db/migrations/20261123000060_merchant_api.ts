import type { Knex } from 'knex';

/**
 * The Merchant API (/shawarma):
 * - indexes for the order list (newest first, filters) and the statistics, which must stay fast on a store
 *   with 100,000 orders: the statistics read (store_id, status, created_at) with the total included, so the
 *   sales figures and the counts by status come from one index-only scan, already grouped by status;
 * - the audit trail of merchant status changes (one row per change, written in the change's transaction);
 * - the body hash of an `Idempotency-Key` record (same key, different body: 409);
 * - outbound webhooks to merchants: endpoints (secret encrypted at rest) and one delivery row per event
 *   and endpoint, unique, so an event emitted twice is delivered once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create index orders_store_created on orders (store_id, created_at desc, id desc)');
  await knex.raw(
    'create index orders_store_status on orders (store_id, status, created_at desc) include (total_minor)',
  );
  await knex.raw('create index orders_store_email on orders (store_id, lower(customer_email))');
  await knex.raw('create index orders_store_phone on orders (store_id, customer_phone)');
  await knex.raw('create index order_items_product_order on order_items (product_id, order_id)');
  // Top products: the paid orders' items read by order id without touching the item rows.
  await knex.raw(
    'create index order_items_order_sales on order_items (order_id) include (product_id, quantity, total_minor)',
  );
  await knex.raw('create index customers_store_created on customers (store_id, created_at)');
  await knex.raw('create index subscriptions_store_created on subscriptions (store_id, created_at desc)');
  await knex.raw('create index licenses_order on licenses (order_id, id)');

  await knex.schema.createTable('order_status_events', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE').index();
    t.smallint('from_status').notNullable();
    t.smallint('to_status').notNullable();
    t.string('source', 20).notNullable(); // merchant
    t.integer('merchant_token_id').references('merchant_tokens.id').onDelete('SET NULL');
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.alterTable('idempotency_records', (t) => {
    t.string('content_hash', 64); // Idempotency-Key records: the body the key was first used with
  });

  await knex.schema.createTable('merchant_webhook_endpoints', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE').index();
    t.string('url', 2000).notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.text('secret_encrypted').notNullable(); // AES-256-GCM with the platform secret
    t.string('description', 200);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('merchant_webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('endpoint_id').notNullable().references('merchant_webhook_endpoints.id').onDelete('CASCADE');
    t.string('event_id', 120).notNullable(); // deterministic: "order.paid:42"
    t.string('event_type', 50).notNullable();
    t.jsonb('payload').notNullable();
    t.string('status', 20).notNullable().defaultTo('pending'); // pending, delivered, failed
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('response_status');
    t.string('last_error', 500);
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['endpoint_id', 'event_id']);
    t.check("?? in ('pending', 'delivered', 'failed')", ['status'], 'mwd_status_check');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('merchant_webhook_deliveries');
  await knex.schema.dropTableIfExists('merchant_webhook_endpoints');
  await knex.schema.alterTable('idempotency_records', (t) => {
    t.dropColumn('content_hash');
  });
  await knex.schema.dropTableIfExists('order_status_events');
  for (const index of [
    'licenses_order',
    'subscriptions_store_created',
    'customers_store_created',
    'order_items_order_sales',
    'order_items_product_order',
    'orders_store_phone',
    'orders_store_email',
    'orders_store_status',
    'orders_store_created',
  ]) {
    await knex.raw(`drop index if exists ${index}`);
  }
}
