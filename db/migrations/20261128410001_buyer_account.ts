import type { Knex } from 'knex';

/**
 * The buyer's account at /account (docs/account.md).
 *
 * - buyer_sessions: a signed-in browser of a buyer. A buyer is an identity, not a row of `customers` (those
 *   are per store): a phone (`phone`, the E.164 digits) or an e-mail address (`email`, lower case). Only
 *   the SHA-256 of the cookie's token is kept. Revoked one by one (sign out) or every session of the
 *   identity at once (sign out everywhere).
 * - buyer_email_links: a one-time sign-in link sent to an address; only the SHA-256 of its token is kept;
 *   used once (`used_at`), within minutes.
 * - reviews: `buyer` names the identity that wrote a review from the account (one review per product and
 *   buyer: a unique index), `verified` marks a review written by someone who bought the product (every
 *   account review is), `reply` and `replied_at` the store's public answer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('buyer_sessions', (t) => {
    t.increments('id');
    t.string('identity_kind', 10).notNullable();
    t.string('identity', 254).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_agent', 300);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('revoked_at', { useTz: true });
    t.index(['identity_kind', 'identity']);
    t.check("?? in ('phone', 'email')", ['identity_kind'], 'buyer_sessions_kind_check');
  });

  await knex.schema.createTable('buyer_email_links', (t) => {
    t.increments('id');
    t.string('email', 254).notNullable().index();
    t.string('token_hash', 64).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('used_at', { useTz: true });
  });

  await knex.schema.alterTable('reviews', (t) => {
    t.string('buyer', 270);
    t.boolean('verified').notNullable().defaultTo(false);
    t.text('reply');
    t.timestamp('replied_at', { useTz: true });
  });
  await knex.raw(
    'create unique index reviews_one_per_buyer on reviews (product_id, buyer) where buyer is not null',
  );
  // Orders by the identity the account signs in with (any store).
  await knex.raw(
    "create index orders_buyer_email on orders (lower(customer_email)) where customer_email <> ''",
  );
  await knex.raw('create index orders_buyer_phone on orders (customer_phone)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists orders_buyer_phone');
  await knex.raw('drop index if exists orders_buyer_email');
  await knex.raw('drop index if exists reviews_one_per_buyer');
  await knex.schema.alterTable('reviews', (t) => {
    t.dropColumn('replied_at');
    t.dropColumn('reply');
    t.dropColumn('verified');
    t.dropColumn('buyer');
  });
  await knex.schema.dropTableIfExists('buyer_email_links');
  await knex.schema.dropTableIfExists('buyer_sessions');
}
