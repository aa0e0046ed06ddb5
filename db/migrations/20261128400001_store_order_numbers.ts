import type { Knex } from 'knex';

/**
 * Per-store order numbers (docs/dashboard.md, "Order numbers"): each store's orders count from 1.
 * - store_order_counters: one row per store, `last_number` the highest number handed out.
 * - orders.number: set by the BEFORE INSERT trigger `orders_take_number`, which bumps the store's counter
 *   in the inserting transaction. The counter row stays locked until that transaction ends, so two orders
 *   of one store are numbered one after the other (never the same number), and a rolled back order gives
 *   its number back with the rollback (no gap). Orders of different stores never wait for each other.
 * - unique (store_id, number): the last line of defence.
 * Existing orders are numbered by creation (then id), and each store's counter starts after them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('store_order_counters', (t) => {
    t.integer('store_id').primary().references('stores.id').onDelete('CASCADE');
    t.integer('last_number').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('orders', (t) => {
    t.integer('number');
  });
  await knex.raw(`
    UPDATE orders o SET number = n.rn
      FROM (SELECT id, row_number() OVER (PARTITION BY store_id ORDER BY created_at, id) AS rn FROM orders) n
     WHERE o.id = n.id`);
  await knex.raw(`
    INSERT INTO store_order_counters (store_id, last_number)
    SELECT store_id, max(number) FROM orders GROUP BY store_id`);
  await knex.raw('ALTER TABLE orders ALTER COLUMN number SET NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX orders_store_number_unique ON orders (store_id, number)');
  await knex.raw(`
    CREATE FUNCTION orders_take_number() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO store_order_counters AS c (store_id, last_number) VALUES (NEW.store_id, 1)
        ON CONFLICT (store_id) DO UPDATE SET last_number = c.last_number + 1
        RETURNING c.last_number INTO NEW.number;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER orders_take_number BEFORE INSERT ON orders
      FOR EACH ROW EXECUTE FUNCTION orders_take_number()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS orders_take_number ON orders');
  await knex.raw('DROP FUNCTION IF EXISTS orders_take_number()');
  await knex.raw('DROP INDEX IF EXISTS orders_store_number_unique');
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('number');
  });
  await knex.schema.dropTable('store_order_counters');
}
