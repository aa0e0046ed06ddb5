import type { Knex } from 'knex';

/**
 * Storefront: carts, checkouts with several lines, and what analytics ingest stores.
 *
 * - `checkout_items`: the lines of a checkout (one for an Embed checkout, one per cart line for a
 *   Storefront one). The checkout's own product/plan/quantity columns keep describing its first line, so
 *   rows written before this migration (no items) still read as one-line checkouts.
 * - `carts` / `cart_items`: a signed-in customer's cart (one per store and customer) or an anonymous
 *   visitor's, found by the SHA-256 of the opaque cart id the client keeps.
 * - `analytics_events`: the columns an analytics product reads (referrer host, a visitor hash salted per
 *   day, device class) and `ingest_key`, unique, so an event handed to the writer twice is stored once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('checkout_items', (t) => {
    t.increments('id');
    t.integer('checkout_id').notNullable().references('checkouts.id').onDelete('CASCADE').index();
    t.integer('position').notNullable();
    t.integer('product_id').notNullable().references('products.id');
    t.integer('plan_id').references('product_plans.id');
    t.integer('quantity').notNullable();
    t.bigInteger('unit_price_minor').notNullable();
    t.bigInteger('addons_minor').notNullable().defaultTo(0);
    t.bigInteger('subtotal_minor').notNullable();
    t.jsonb('fields').notNullable().defaultTo('{}');
    // Finite stock units taken from products.stock for this line (code keys are tracked on product_codes).
    t.boolean('reserved').notNullable().defaultTo(false);
    t.unique(['checkout_id', 'position']);
    t.check('?? >= 1', ['quantity'], 'checkout_items_quantity_check');
  });

  await knex.schema.createTable('carts', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE').index();
    t.integer('customer_id').references('customers.id').onDelete('CASCADE');
    t.string('token_hash', 64).unique(); // sha256 of an anonymous visitor's cart id
    t.string('coupon_code', 100);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).index();
    t.check('(?? is null) <> (?? is null)', ['customer_id', 'token_hash'], 'carts_owner_check');
  });
  await knex.raw(
    'create unique index carts_store_customer_unique on carts (store_id, customer_id) where customer_id is not null',
  );

  await knex.schema.createTable('cart_items', (t) => {
    t.increments('id');
    t.integer('cart_id').notNullable().references('carts.id').onDelete('CASCADE').index();
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    t.integer('plan_id').references('product_plans.id').onDelete('CASCADE');
    t.integer('quantity').notNullable();
    t.jsonb('fields').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('?? >= 1', ['quantity'], 'cart_items_quantity_check');
  });

  await knex.schema.alterTable('analytics_events', (t) => {
    t.string('ingest_key', 100).unique();
    t.string('referrer_host', 253);
    t.string('visitor_hash', 64);
    t.string('device_class', 10); // desktop, mobile, tablet
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('analytics_events', (t) => {
    t.dropColumn('device_class');
    t.dropColumn('visitor_hash');
    t.dropColumn('referrer_host');
    t.dropColumn('ingest_key');
  });
  await knex.schema.dropTableIfExists('cart_items');
  await knex.schema.dropTableIfExists('carts');
  await knex.schema.dropTableIfExists('checkout_items');
}
