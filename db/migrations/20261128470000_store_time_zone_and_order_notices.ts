import type { Knex } from 'knex';

/**
 * A store's reading settings and its new-order notices (docs/dashboard.md, "Store settings"):
 * - time_zone: the IANA zone dates are shown in to people (receipts, expiry); Asia/Riyadh by default.
 * - digits: `western` (0-9, the default) or `arabic_indic` (٠-٩), one choice for widget, pages and dashboard.
 * - notify_order_message / notify_order_email: tell the owner of each new paid order by message and by
 *   e-mail (both on by default).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.string('time_zone', 64).notNullable().defaultTo('Asia/Riyadh');
    t.string('digits', 12).notNullable().defaultTo('western');
    t.boolean('notify_order_message').notNullable().defaultTo(true);
    t.boolean('notify_order_email').notNullable().defaultTo(true);
  });
  await knex.raw(
    "alter table stores add constraint stores_digits_check check (digits in ('western', 'arabic_indic'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table stores drop constraint if exists stores_digits_check');
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('notify_order_email');
    t.dropColumn('notify_order_message');
    t.dropColumn('digits');
    t.dropColumn('time_zone');
  });
}
