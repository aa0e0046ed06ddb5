import type { Knex } from 'knex';

/**
 * The most units of a product one checkout line may take. Without it one anonymous checkout could reserve
 * every key and the whole stock for an hour (and keep them with a manual payment); the operator contract
 * (docs/operations.md) pins the default at 10.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('products', (t) => {
    t.integer('max_per_order').notNullable().defaultTo(10);
  });
  await knex.raw(
    'alter table products add constraint products_max_per_order_range check (max_per_order between 1 and 10000)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('products', (t) => {
    t.dropColumn('max_per_order');
  });
}
