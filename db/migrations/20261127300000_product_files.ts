import type { Knex } from 'knex';

/**
 * Files on a `product` (the spec's digital product) and their downloads (docs/downloads.md).
 *
 * - product_files: one row per uploaded version. `removed_at` takes a file off the product (later buyers
 *   no longer get it, past buyers keep it); a replacement is a new row naming the one it `replaces`, which
 *   only orders placed after it get, unless the merchant chose "update for everyone" (`for_everyone`, and
 *   the old row's `withdrawn`: no buyer gets it any more). The bytes sit under `storage_key` in the driver
 *   named by `storage_driver`; `sha256` is the content's hash, computed on the way in.
 * - products.download_limit: completed downloads allowed per file and order item (0: no limit).
 * - file_downloads: each download served (when, from which IP); `counted` rows count against the limit,
 *   and a merchant's reset turns them off while keeping the history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('products', (t) => {
    t.integer('download_limit').notNullable().defaultTo(5);
  });
  await knex.raw(
    'alter table products add constraint products_download_limit_check check (download_limit between 0 and 1000000)',
  );
  await knex.schema.createTable('product_files', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.bigInteger('size').notNullable();
    t.string('sha256', 64).notNullable();
    t.string('storage_driver', 10).notNullable();
    t.string('storage_key', 300).notNullable().unique();
    t.integer('replaces_id').references('product_files.id').onDelete('SET NULL');
    t.boolean('for_everyone').notNullable().defaultTo(false);
    t.boolean('withdrawn').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('removed_at', { useTz: true });
    t.index(['product_id', 'created_at']);
    t.index(['store_id']);
    t.check('?? >= 0', ['size'], 'product_files_size_check');
    t.check("?? ~ '^[0-9a-f]{64}$'", ['sha256'], 'product_files_sha256_check');
  });
  await knex.schema.createTable('file_downloads', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_item_id').notNullable().references('order_items.id').onDelete('CASCADE');
    t.integer('file_id').notNullable().references('product_files.id').onDelete('CASCADE');
    t.string('ip', 45).notNullable();
    t.boolean('counted').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['order_item_id', 'file_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_downloads');
  await knex.schema.dropTable('product_files');
  await knex.schema.alterTable('products', (t) => {
    t.dropChecks('products_download_limit_check');
    t.dropColumn('download_limit');
  });
}
