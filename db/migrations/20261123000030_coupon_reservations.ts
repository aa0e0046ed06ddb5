import type { Knex } from 'knex';

/**
 * Coupon uses are reserved at checkout, like stock: `coupons.reserved_uses` counts the
 * uses held by open checkouts, and `checkouts.coupon_reserved` says that this checkout holds one. A use is
 * granted only while `uses_count + reserved_uses < max_uses`, by one conditional UPDATE.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('coupons', (t) => {
    t.integer('reserved_uses').notNullable().defaultTo(0);
  });
  await knex.raw('alter table coupons add constraint coupons_reserved_uses_check check (reserved_uses >= 0)');
  await knex.schema.alterTable('checkouts', (t) => {
    t.boolean('coupon_reserved').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('coupon_reserved');
  });
  await knex.schema.alterTable('coupons', (t) => {
    t.dropColumn('reserved_uses');
  });
}
