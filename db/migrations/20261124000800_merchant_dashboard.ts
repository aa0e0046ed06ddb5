import type { Knex } from 'knex';

/**
 * The merchant dashboard (/merchant): people who run stores, their role in each store, and their browser
 * sessions.
 *
 * - merchant_users: one per phone (e164), across stores; signs in by a one-time code to that phone.
 * - store_members: who may act on a store and how (owner, manager, support).
 * - dashboard_sessions: a signed-in browser; only the SHA-256 of the cookie's token is kept, so a database
 *   read gives no usable session. Revoked one by one (sign out) or all at once (sign out everywhere).
 * - otp_sessions.store_id becomes optional: a dashboard sign-in or sign-up code (channel `dashboard`)
 *   belongs to a person, not to a store (at sign-up the store does not exist yet). The buyer channels
 *   still always set it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('merchant_users', (t) => {
    t.increments('id');
    t.string('name', 200).notNullable().defaultTo('');
    t.string('country_code', 4).notNullable();
    t.string('phone', 20).notNullable();
    t.string('e164', 20).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('store_members', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('merchant_user_id').notNullable().references('merchant_users.id').onDelete('CASCADE').index();
    t.string('role', 20).notNullable();
    t.integer('invited_by').references('merchant_users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['store_id', 'merchant_user_id']);
    t.check("?? in ('owner', 'manager', 'support')", ['role'], 'store_members_role_check');
  });

  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.increments('id');
    t.integer('merchant_user_id').notNullable().references('merchant_users.id').onDelete('CASCADE').index();
    // The store the session is looking at (a person may belong to several).
    t.integer('store_id').references('stores.id').onDelete('SET NULL');
    t.string('token_hash', 64).notNullable().unique();
    t.string('user_agent', 300);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.raw('alter table otp_sessions alter column store_id drop not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex('otp_sessions').whereNull('store_id').delete();
  await knex.raw('alter table otp_sessions alter column store_id set not null');
  await knex.schema.dropTableIfExists('dashboard_sessions');
  await knex.schema.dropTableIfExists('store_members');
  await knex.schema.dropTableIfExists('merchant_users');
}
