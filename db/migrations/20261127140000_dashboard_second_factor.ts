import type { Knex } from 'knex';

/**
 * A dashboard sign-in as strong as what it guards (docs/dashboard.md, docs/security.md):
 *
 * - `otp_sessions.decoy`: a sign-in code started for a phone that belongs to no store. It is kept and
 *   answered like any other (same page, same limits) so the form does not tell who is a merchant, but its
 *   code is never sent and never matches.
 * - `merchant_users.totp_secret_encrypted` (sealed with the platform's at-rest cipher): the authenticator
 *   app's seed once switched on; `totp_pending_secret_encrypted` the seed being enrolled, until its first
 *   code confirms it; `totp_last_step` the last 30-second step accepted (a code is never accepted twice).
 * - `merchant_user_recovery_codes`: one-time codes for a lost authenticator, only a keyed hash kept.
 * - `dashboard_sign_in_challenges`: the half-signed-in state between the phone code and the second
 *   factor: a few minutes long, bound to the browser by a cookie whose token only this hash matches.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('otp_sessions', (t) => {
    t.boolean('decoy').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('merchant_users', (t) => {
    t.text('totp_secret_encrypted').nullable();
    t.text('totp_pending_secret_encrypted').nullable();
    t.timestamp('totp_enabled_at', { useTz: true }).nullable();
    t.bigInteger('totp_last_step').nullable();
  });
  await knex.schema.createTable('merchant_user_recovery_codes', (t) => {
    t.bigIncrements('id');
    t.integer('merchant_user_id')
      .notNullable()
      .references('id')
      .inTable('merchant_users')
      .onDelete('CASCADE');
    t.string('code_hash', 64).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['merchant_user_id']);
  });
  await knex.schema.createTable('dashboard_sign_in_challenges', (t) => {
    t.bigIncrements('id');
    t.integer('merchant_user_id')
      .notNullable()
      .references('id')
      .inTable('merchant_users')
      .onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    // The store to open once signed in; for a sign-up, the store still to create (its name and yours).
    t.integer('store_id').nullable();
    t.text('signup_store_name').nullable();
    t.text('signup_owner_name').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dashboard_sign_in_challenges');
  await knex.schema.dropTable('merchant_user_recovery_codes');
  await knex.schema.alterTable('merchant_users', (t) => {
    t.dropColumn('totp_last_step');
    t.dropColumn('totp_enabled_at');
    t.dropColumn('totp_pending_secret_encrypted');
    t.dropColumn('totp_secret_encrypted');
  });
  await knex.schema.alterTable('otp_sessions', (t) => {
    t.dropColumn('decoy');
  });
}
