import type { Knex } from 'knex';

/**
 * Subscriptions that renew by themselves.
 *
 * - `subscriptions`: how the next period is paid (`payment_method`, `provider`, and the provider's saved
 *   card token, encrypted at rest; never the card itself), `cancel_at_period_end`, a plan change waiting
 *   for the next period (`next_plan_id`), `past_due_since` while dunning runs, and `ended_at`: when what
 *   the period granted was taken back (licenses expired, FiveM `on_expiry` commands queued), once.
 *   Statuses: active, past_due, cancelled, expired.
 * - `subscription_renewals`: one row per subscription and period, ever (unique on the period's start):
 *   the period is charged through this row only, so two schedulers, a retried job and the development
 *   route all land on it. It holds the renewal's checkout (the order is created from it through the same
 *   path as a checkout), the current payment, the attempts made and when the next one is due.
 * - `payments.saved_token_encrypted`: the card token a provider saved with this payment, until the
 *   subscription it paid for takes it.
 * - `sandbox_payments` / `sandbox_tokens`: the sandbox provider's own side of saved cards (a token, charges
 *   made with it, keyed by the caller's idempotency key, and how many of its next charges to decline).
 * - FiveM templates and queued commands gain the moments `renewal` and `expiry`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.string('payment_method', 20);
    t.string('provider', 20);
    t.text('payment_token_encrypted');
    t.boolean('cancel_at_period_end').notNullable().defaultTo(false);
    t.integer('next_plan_id').references('product_plans.id').onDelete('SET NULL');
    t.timestamp('past_due_since', { useTz: true });
    t.timestamp('ended_at', { useTz: true });
  });
  await knex.raw(
    "alter table subscriptions add constraint subscriptions_status_check check (status in ('active', 'past_due', 'cancelled', 'expired'))",
  );
  await knex.raw(
    "create index subscriptions_renewing on subscriptions (current_period_end) where status in ('active', 'past_due')",
  );

  await knex.schema.createTable('subscription_renewals', (t) => {
    t.increments('id');
    t.integer('subscription_id').notNullable().references('subscriptions.id').onDelete('CASCADE');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.timestamp('period_start', { useTz: true }).notNullable();
    t.integer('plan_id').notNullable().references('product_plans.id');
    // pending, charging (an attempt is with the provider), paid, failed (dunning), link_sent
    t.string('status', 20).notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.integer('checkout_id').references('checkouts.id').onDelete('SET NULL').unique();
    t.integer('payment_id').references('payments.id').onDelete('SET NULL');
    t.integer('order_id').references('orders.id').onDelete('SET NULL');
    t.string('last_error', 500);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['subscription_id', 'period_start']);
    t.check(
      "?? in ('pending', 'charging', 'paid', 'failed', 'link_sent')",
      ['status'],
      'subscription_renewals_status_check',
    );
  });
  await knex.raw(
    "create index subscription_renewals_retry on subscription_renewals (next_attempt_at) where status = 'failed'",
  );

  await knex.schema.alterTable('payments', (t) => {
    t.text('saved_token_encrypted');
  });

  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.boolean('save_card').notNullable().defaultTo(false);
    t.string('token', 100);
    t.string('idempotency_key', 200).unique();
  });
  await knex.schema.createTable('sandbox_tokens', (t) => {
    t.string('token', 100).primary();
    t.integer('store_id').references('stores.id').onDelete('CASCADE');
    t.integer('decline_next').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.raw('alter table product_fivem_commands drop constraint product_fivem_commands_run_on_check');
  await knex.raw(
    "alter table product_fivem_commands add constraint product_fivem_commands_run_on_check check (run_on in ('purchase', 'refund', 'renewal', 'expiry'))",
  );
  await knex.raw('alter table fivem_commands drop constraint fivem_commands_kind_check');
  await knex.raw(
    "alter table fivem_commands add constraint fivem_commands_kind_check check (kind in ('purchase', 'refund', 'renewal', 'expiry'))",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('fivem_commands').whereIn('kind', ['renewal', 'expiry']).delete();
  await knex('product_fivem_commands').whereIn('run_on', ['renewal', 'expiry']).delete();
  await knex.raw('alter table fivem_commands drop constraint fivem_commands_kind_check');
  await knex.raw(
    "alter table fivem_commands add constraint fivem_commands_kind_check check (kind in ('purchase', 'refund'))",
  );
  await knex.raw('alter table product_fivem_commands drop constraint product_fivem_commands_run_on_check');
  await knex.raw(
    "alter table product_fivem_commands add constraint product_fivem_commands_run_on_check check (run_on in ('purchase', 'refund'))",
  );
  await knex.schema.dropTableIfExists('sandbox_tokens');
  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.dropColumn('save_card');
    t.dropColumn('token');
    t.dropColumn('idempotency_key');
  });
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('saved_token_encrypted');
  });
  await knex.schema.dropTableIfExists('subscription_renewals');
  await knex.raw('drop index if exists subscriptions_renewing');
  await knex.raw('alter table subscriptions drop constraint if exists subscriptions_status_check');
  await knex('subscriptions').where('status', 'past_due').update({ status: 'active' });
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('payment_method');
    t.dropColumn('provider');
    t.dropColumn('payment_token_encrypted');
    t.dropColumn('cancel_at_period_end');
    t.dropColumn('next_plan_id');
    t.dropColumn('past_due_since');
    t.dropColumn('ended_at');
  });
}
