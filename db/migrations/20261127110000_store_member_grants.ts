import type { Knex } from 'knex';

/**
 * store_members.grants: permissions a store's owner grants one member on top of their role
 * (shared/services/staff/roles.ts). The only one so far is `orders.confirm_payment`: confirming that a
 * bank transfer or manual PayPal payment arrived (which releases the goods), off for the support role
 * until an owner grants it on the staff page. The check keeps anything else out of the column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('store_members', (t) => {
    t.specificType('grants', 'text[]').notNullable().defaultTo('{}');
  });
  await knex.raw(
    `alter table store_members add constraint store_members_grants_known
       check (grants <@ array['orders.confirm_payment']::text[])`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('store_members', (t) => {
    t.dropChecks('store_members_grants_known');
    t.dropColumn('grants');
  });
}
