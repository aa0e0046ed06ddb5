import type { Knex } from 'knex';

/**
 * Per-store order numbers (docs/dashboard.md, "Order numbers"): each store's orders count from 1.
 * - store_order_counters: one row per store, `last_number` the highest number handed out.
 * - orders.number: set by the BEFORE INSERT trigger `orders_take_number` from the store's counter, locked
 *   by the inserting transaction until it ends, and written back once per statement (`orders_keep_numbers`).
 *   So two orders of one store are numbered one after the other (never the same number), and a rolled back
 *   order gives its number back with the rollback (no gap). Orders of different stores never wait for
 *   each other.
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
  // Per row: the store's next number. The first order of a store in a transaction locks its counter row
  // (FOR UPDATE, held to the end of the transaction) and reads it; later ones in the same transaction go on
  // from a transaction-local setting, so a statement inserting 100,000 orders does not update one row
  // 100,000 times. A savepoint rolled back takes its setting change back with it.
  await knex.raw(`
    CREATE FUNCTION orders_take_number() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      setting text := 'matjar.order_number_' || NEW.store_id;
      last integer := nullif(current_setting(setting, true), '')::integer;
    BEGIN
      IF last IS NULL THEN
        INSERT INTO store_order_counters (store_id, last_number) VALUES (NEW.store_id, 0)
          ON CONFLICT (store_id) DO NOTHING;
        SELECT c.last_number INTO last FROM store_order_counters c WHERE c.store_id = NEW.store_id FOR UPDATE;
      END IF;
      NEW.number := last + 1;
      PERFORM set_config(setting, NEW.number::text, true);
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER orders_take_number BEFORE INSERT ON orders
      FOR EACH ROW EXECUTE FUNCTION orders_take_number()`);
  // Per statement: the counters of the stores it inserted orders for move to the last number handed out.
  await knex.raw(`
    CREATE FUNCTION orders_keep_numbers() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE store_order_counters c
         SET last_number = current_setting('matjar.order_number_' || c.store_id)::integer
       WHERE c.store_id IN (SELECT DISTINCT i.store_id FROM inserted i);
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER orders_keep_numbers AFTER INSERT ON orders REFERENCING NEW TABLE AS inserted
      FOR EACH STATEMENT EXECUTE FUNCTION orders_keep_numbers()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS orders_keep_numbers ON orders');
  await knex.raw('DROP FUNCTION IF EXISTS orders_keep_numbers()');
  await knex.raw('DROP TRIGGER IF EXISTS orders_take_number ON orders');
  await knex.raw('DROP FUNCTION IF EXISTS orders_take_number()');
  await knex.raw('DROP INDEX IF EXISTS orders_store_number_unique');
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('number');
  });
  await knex.schema.dropTable('store_order_counters');
}
