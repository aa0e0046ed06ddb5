import type { Knex } from 'knex';

/**
 * The Merchant API's write side:
 * - products carry a `version` (moved by every write, matched by `If-Match`) and `archived_at` (a product
 *   taken off sale by DELETE: orders keep pointing at it, the catalogue and the merchant's list no longer
 *   show it);
 * - merchant tokens carry a `scope` (`read` or `write`; every token issued before is `write`) and the last
 *   four characters of the token (null for tokens issued before, whose value was never kept), so a list
 *   can tell tokens apart without showing them; FiveM secrets the same last four;
 * - stores carry the `locale` buyers and the merchant read by default;
 * - `merchant_audit_events`: one row per merchant write (who, which token, what changed), written in the
 *   write's own transaction, so a change and its record commit or roll back together.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('products', (t) => {
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('archived_at', { useTz: true });
  });
  await knex.schema.alterTable('merchant_tokens', (t) => {
    t.string('scope', 10).notNullable().defaultTo('write');
    t.string('last4', 4);
  });
  await knex.raw(
    "alter table merchant_tokens add constraint merchant_tokens_scope_check check (scope in ('read', 'write'))",
  );
  await knex.schema.alterTable('fivem_servers', (t) => {
    t.string('last4', 4);
  });
  await knex.schema.alterTable('stores', (t) => {
    t.string('locale', 2).notNullable().defaultTo('ar');
  });
  await knex.raw("alter table stores add constraint stores_locale_check check (locale in ('ar', 'en'))");
  await knex.schema.createTable('merchant_audit_events', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('merchant_token_id').references('merchant_tokens.id').onDelete('SET NULL');
    t.string('actor', 100).notNullable(); // "token:<name>", "operator", ...
    t.string('action', 50).notNullable(); // product.created, coupon.updated, store.embed_key_rotated, ...
    t.string('resource_type', 30).notNullable();
    t.integer('resource_id');
    t.jsonb('changes').notNullable().defaultTo('{}'); // {field: {from, to}}; secrets as "set"
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create index merchant_audit_events_store on merchant_audit_events (store_id, created_at desc, id desc)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('merchant_audit_events');
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('locale');
  });
  await knex.schema.alterTable('fivem_servers', (t) => {
    t.dropColumn('last4');
  });
  await knex.schema.alterTable('merchant_tokens', (t) => {
    t.dropColumn('scope');
    t.dropColumn('last4');
  });
  await knex.schema.alterTable('products', (t) => {
    t.dropColumn('version');
    t.dropColumn('archived_at');
  });
}
