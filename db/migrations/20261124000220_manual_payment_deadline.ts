import type { Knex } from 'knex';

/**
 * How long a buyer has to pay a manual-payment order (bank transfer, PayPal manual) before the
 * `expire-manual-orders` maintenance task cancels it and puts its keys, stock and coupon use back on sale.
 * Without a deadline an "under review" order would hold them for ever.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.integer('manual_payment_days').notNullable().defaultTo(3);
  });
  await knex.raw(
    'alter table stores add constraint stores_manual_payment_days_range check (manual_payment_days between 1 and 30)',
  );
  // The task's scan: manual orders under review, oldest first.
  await knex.raw('create index orders_under_review_created on orders (created_at) where status = 2');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists orders_under_review_created');
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('manual_payment_days');
  });
}
