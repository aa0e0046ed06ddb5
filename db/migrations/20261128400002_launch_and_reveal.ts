import type { Knex } from 'knex';

/**
 * A merchant's first hour (docs/dashboard.md, "Launch checklist") and the goods shown at once to the
 * browser that paid (docs/widget.md, "The goods after paying"):
 * - checkouts.reveal_token_hash: SHA-256 of the random reveal token the checkout answer gave that browser
 *   (the widget, the store pages' checkout); only the hash is kept.
 * - checkouts.reveal_cookie_hash: SHA-256 of the random token in the hosted payment page's cookie, set for
 *   the first browser that opened one of the checkout's payment pages before it was paid.
 * - stores.widget_snippet_copied_at: when someone of the store first copied a product's widget snippet
 *   (ticks the checklist's "share or paste the widget").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.string('reveal_token_hash', 64);
    t.string('reveal_cookie_hash', 64);
  });
  await knex.schema.alterTable('stores', (t) => {
    t.timestamp('widget_snippet_copied_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('widget_snippet_copied_at');
  });
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('reveal_token_hash');
    t.dropColumn('reveal_cookie_hash');
  });
}
