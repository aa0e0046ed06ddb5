import type { Knex } from 'knex';

/**
 * Fraud controls (docs/fraud.md).
 * - store_fraud_settings: one row per store that set any fraud setting (none: every control off). Block
 *   lists as text arrays (e-mails lowercased, `@domain` entries; IPs and CIDR ranges in canonical form),
 *   the limits, and the review rules. Amounts in minor units.
 * - checkout_refusals: one row per checkout refused by a control, with the rule that matched (what the
 *   merchant sees; the buyer is told nothing). Counted on /metrics.
 * - order_risk: the risk score and its reasons, per paid order, and whether it was held for review.
 * - order_disputes: one per order (unique): a provider's dispute (chargeback), its deadline; the unique
 *   order_id is what makes a duplicate dispute webhook a no-op.
 * - orders.disputed_at: set once, with the dispute.
 * - sandbox_payments.disputed_at / dispute_event_id: the sandbox provider's own record of a dispute.
 * - key_claims: a buyer's "this key does not work" on a delivered code key; at most one open or approved
 *   claim per key (partial unique index), so a key is replaced once. product_codes.bad_at: the key a
 *   claim replaced, kept on its order item (it stays sold: never on sale again).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('store_fraud_settings', (t) => {
    t.integer('store_id').primary().references('stores.id').onDelete('CASCADE');
    t.specificType('blocked_emails', 'text[]').notNullable().defaultTo('{}');
    t.specificType('blocked_ips', 'text[]').notNullable().defaultTo('{}');
    t.integer('max_orders_per_buyer_per_day');
    t.integer('max_units_per_product_per_day');
    t.bigInteger('new_buyer_daily_limit_minor');
    t.bigInteger('review_above_minor');
    t.integer('review_buyers_per_ip_per_hour');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('checkout_refusals', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('rule', 40).notNullable();
    t.string('matched', 300).notNullable();
    t.string('source', 20).notNullable();
    t.string('customer_email', 254);
    t.string('customer_phone', 30);
    t.string('client_ip', 64);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create index checkout_refusals_store on checkout_refusals (store_id, created_at desc, id desc)',
  );
  await knex.schema.createTable('order_risk', (t) => {
    t.integer('order_id').primary().references('orders.id').onDelete('CASCADE');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.smallint('score').notNullable();
    t.jsonb('reasons').notNullable().defaultTo('[]');
    t.boolean('held').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index order_risk_held on order_risk (store_id, created_at desc) where held');
  await knex.schema.createTable('order_disputes', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().unique().references('orders.id').onDelete('CASCADE');
    t.string('provider', 20).notNullable();
    t.string('provider_dispute_id', 200).notNullable();
    t.string('reason', 300);
    t.bigInteger('amount_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.timestamp('deadline_at', { useTz: true });
    t.integer('licenses_revoked').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index order_disputes_store on order_disputes (store_id, created_at desc)');
  await knex.schema.alterTable('orders', (t) => {
    t.timestamp('disputed_at', { useTz: true });
  });
  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.timestamp('disputed_at', { useTz: true });
    t.string('dispute_event_id', 40);
  });
  await knex.schema.createTable('key_claims', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.integer('product_code_id').notNullable().references('product_codes.id').onDelete('CASCADE');
    t.integer('replacement_code_id').references('product_codes.id').onDelete('SET NULL');
    t.string('status', 10).notNullable().defaultTo('open');
    t.string('buyer_note', 1000);
    t.string('merchant_note', 1000);
    t.string('locale', 2).notNullable().defaultTo('en');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('decided_at', { useTz: true });
    t.check("?? in ('open', 'approved', 'declined')", ['status'], 'key_claims_status_check');
  });
  await knex.raw(
    "create unique index key_claims_once_per_key on key_claims (product_code_id) where status in ('open', 'approved')",
  );
  await knex.raw('create index key_claims_store on key_claims (store_id, created_at desc)');
  await knex.schema.alterTable('product_codes', (t) => {
    t.timestamp('bad_at', { useTz: true });
  });
  // The buyer's live checkouts, counted by the limits under their lock (fraud/limits.ts).
  await knex.raw(
    `create index checkouts_store_buyer_open on checkouts (store_id, customer_phone)
       where status in ('created', 'payment_initiated')`,
  );
  await knex.raw(
    `create index checkouts_store_email_open on checkouts (store_id, lower(customer_email))
       where status in ('created', 'payment_initiated')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('product_codes', (t) => {
    t.dropColumn('bad_at');
  });
  await knex.schema.dropTable('key_claims');
  await knex.raw('drop index if exists checkouts_store_email_open');
  await knex.raw('drop index if exists checkouts_store_buyer_open');
  await knex.schema.alterTable('sandbox_payments', (t) => {
    t.dropColumn('dispute_event_id');
    t.dropColumn('disputed_at');
  });
  await knex.schema.alterTable('orders', (t) => {
    t.dropColumn('disputed_at');
  });
  await knex.schema.dropTable('order_disputes');
  await knex.schema.dropTable('order_risk');
  await knex.schema.dropTable('checkout_refusals');
  await knex.schema.dropTable('store_fraud_settings');
}
