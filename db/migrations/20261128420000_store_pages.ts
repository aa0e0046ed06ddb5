import type { Knex } from 'knex';

/**
 * Store pages and the bilingual catalogue (docs/store-pages.md).
 *
 * - `stores.slug`: the store's page address `/s/{slug}` (lower-case letters, digits and hyphens; unique on
 *   the platform). Every store has one: a store inserted without it (sign-up, a test) gets `store-<id>` from
 *   a trigger, so no writer can forget it; existing stores get `store-<id>` too.
 * - `stores.page_description`, `logo_url`, `accent_color`, `policies`: what the store page shows (a short
 *   description, the logo, the accent colour) and the policies page the merchant writes (refunds, contact).
 * - `products.name_ar`, `description_ar`; `categories.name_ar`, `description`, `description_ar`: the Arabic
 *   (and English) texts readers pick by the request's language. Custom field labels carry `label_ar` inside
 *   `products.fields` (JSON), so they need no column.
 * - A trigram-free search: products are searched by `lower(name)` / `name_ar` with ILIKE on one store's
 *   active products (a store has hundreds, not millions), helped by the (store_id, active) index below.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.string('slug', 63);
    t.string('page_description', 500);
    t.string('logo_url', 2000);
    t.string('accent_color', 7);
    t.text('policies');
  });
  await knex.raw(`update stores set slug = 'store-' || id`);
  await knex.raw(`
    create function stores_default_slug() returns trigger language plpgsql as $$
    begin
      if new.slug is null then
        new.slug := 'store-' || new.id;
      end if;
      return new;
    end $$`);
  await knex.raw(`create trigger stores_default_slug before insert on stores
                  for each row execute function stores_default_slug()`);
  await knex.raw('alter table stores alter column slug set not null');
  await knex.raw('create unique index stores_slug_unique on stores (slug)');
  await knex.schema.alterTable('products', (t) => {
    t.string('name_ar', 200);
    t.text('description_ar');
    t.index(['store_id', 'active'], 'products_store_active');
  });
  await knex.schema.alterTable('categories', (t) => {
    t.string('name_ar', 200);
    t.text('description');
    t.text('description_ar');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('categories', (t) => {
    t.dropColumn('description_ar');
    t.dropColumn('description');
    t.dropColumn('name_ar');
  });
  await knex.schema.alterTable('products', (t) => {
    t.dropIndex(['store_id', 'active'], 'products_store_active');
    t.dropColumn('description_ar');
    t.dropColumn('name_ar');
  });
  await knex.raw('drop trigger stores_default_slug on stores');
  await knex.raw('drop function stores_default_slug()');
  await knex.raw('drop index stores_slug_unique');
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('policies');
    t.dropColumn('accent_color');
    t.dropColumn('logo_url');
    t.dropColumn('page_description');
    t.dropColumn('slug');
  });
}
