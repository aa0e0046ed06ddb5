import type { Knex } from 'knex';

/**
 * Refunds: money going back to the buyer for an order, in full or in part.
 *
 * - `refunds`: one row per refund the merchant asks for. A provider refund (Moyasar, the sandbox) is
 *   `pending` until the worker has had the provider's answer; a manual one (bank transfer, PayPal without
 *   an API, crypto) is recorded `succeeded` at once, the merchant returning the money themselves.
 *   `idempotency_key` is unique and sent to the provider with the call, so a refund is sent once however
 *   often its job runs; `(store_id, request_key)` makes a repeated POST with the same Idempotency-Key
 *   header answer the refund it created. The amounts of a payment's refunds that are not `failed` never
 *   exceed what was paid: the order row is locked while a refund is added.
 * - `sandbox_refunds`: the sandbox provider's own side, as `sandbox_payments` is for payments.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('refunds', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE').index();
    t.integer('payment_id').notNullable().references('payments.id').onDelete('CASCADE').index();
    t.bigInteger('amount_minor').notNullable();
    t.string('currency', 3).notNullable();
    // provider: the provider's refund API is called by the worker; manual: the merchant returns the money.
    t.string('kind', 10).notNullable();
    t.string('provider', 20).notNullable();
    t.string('status', 20).notNullable().defaultTo('pending');
    t.string('reason', 500);
    t.string('note', 1000);
    t.boolean('withdraw_goods').notNullable().defaultTo(false);
    t.string('idempotency_key', 64).notNullable().unique();
    t.string('request_key', 255);
    t.string('provider_refund_id', 200);
    t.string('provider_status', 50);
    t.string('failure_reason', 500);
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('merchant_token_id').references('merchant_tokens.id').onDelete('SET NULL');
    t.timestamp('succeeded_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['store_id', 'request_key']);
  });
  await knex.raw(`alter table refunds
    add constraint refunds_amount_positive check (amount_minor > 0),
    add constraint refunds_kind check (kind in ('provider', 'manual')),
    add constraint refunds_status check (status in ('pending', 'succeeded', 'failed'))`);
  // The sweep looks for provider refunds still pending.
  await knex.raw(`create index refunds_pending_idx on refunds (created_at) where status = 'pending'`);

  await knex.schema.createTable('sandbox_refunds', (t) => {
    t.string('id', 40).primary();
    t.string('payment_id', 64).notNullable().references('sandbox_payments.id').onDelete('CASCADE').index();
    t.bigInteger('amount_minor').notNullable();
    t.string('idempotency_key', 64).notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sandbox_refunds');
  await knex.schema.dropTableIfExists('refunds');
}
