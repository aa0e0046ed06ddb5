import type { Knex } from 'knex';

/**
 * Growth (docs/growth.md): timed sales, creator codes with their commission ledger, abandoned-checkout
 * reminders and the buyers who opted out of them.
 * - sales: a percentage (basis points) or fixed amount (minor units) off chosen products and/or whole
 *   categories between two instants; `stackable` sales add to the best non-stackable one.
 * - creators: a code unique in its store whatever the case, a commission (basis points), an optional buyer
 *   discount (basis points), and the hash of the secret that opens their private page.
 * - creator_commissions: the ledger; one `earned` row per paid order (unique), one `reversed` row per refund
 *   (unique) or per dispute (unique on the order), signed amounts so a sum is the balance.
 * - checkouts.creator_id: the creator a checkout credits.
 * - checkout_reminders: one per checkout (unique): the task inserts it before sending, so two runs send once.
 *   Its resume address is the row id and an HMAC of it (growth/reminder-refs.ts): no secret is stored.
 * - reminder_opt_outs: a buyer's contact (phone digits or e-mail) that gets no reminder from the store.
 * - stores: the two settings.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sales', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.integer('percent_bp');
    t.bigInteger('amount_minor');
    t.specificType('product_ids', 'integer[]').notNullable().defaultTo('{}');
    t.specificType('category_ids', 'integer[]').notNullable().defaultTo('{}');
    t.timestamp('starts_at', { useTz: true }).notNullable();
    t.timestamp('ends_at', { useTz: true }).notNullable();
    t.boolean('stackable').notNullable().defaultTo(false);
    t.timestamp('deleted_at', { useTz: true });
    t.timestamps(true, true);
    t.check('(?? is null) <> (?? is null)', ['percent_bp', 'amount_minor'], 'sales_one_kind_check');
    t.check('?? > ??', ['ends_at', 'starts_at'], 'sales_window_check');
  });
  await knex.raw('create index sales_store_live on sales (store_id, ends_at) where deleted_at is null');

  await knex.schema.createTable('creators', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('code', 100).notNullable();
    t.integer('commission_bp').notNullable();
    t.integer('discount_bp');
    t.string('page_token_hash', 64).notNullable().unique();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamps(true, true);
    t.check('?? between 0 and 10000', ['commission_bp'], 'creators_commission_check');
  });
  await knex.raw('create unique index creators_store_code on creators (store_id, lower(code))');

  await knex.schema.alterTable('checkouts', (t) => {
    t.integer('creator_id').references('creators.id').onDelete('SET NULL');
  });

  await knex.schema.createTable('creator_commissions', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('creator_id').notNullable().references('creators.id').onDelete('CASCADE').index();
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.string('kind', 10).notNullable();
    t.integer('refund_id').references('refunds.id').onDelete('SET NULL');
    t.bigInteger('revenue_minor').notNullable();
    t.bigInteger('commission_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("?? in ('earned', 'reversed')", ['kind'], 'creator_commissions_kind_check');
  });
  await knex.raw(
    "create unique index creator_commissions_earned_once on creator_commissions (order_id) where kind = 'earned'",
  );
  await knex.raw(
    'create unique index creator_commissions_refund_once on creator_commissions (refund_id) where refund_id is not null',
  );
  await knex.raw(
    "create unique index creator_commissions_dispute_once on creator_commissions (order_id) where kind = 'reversed' and refund_id is null",
  );

  await knex.schema.createTable('checkout_reminders', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('checkout_id').notNullable().references('checkouts.id').onDelete('CASCADE').unique();
    t.string('coupon_code', 100);
    t.integer('recovered_order_id').references('orders.id').onDelete('SET NULL');
    t.bigInteger('recovered_minor');
    t.timestamp('recovered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['store_id', 'created_at']);
  });
  await knex.schema.alterTable('checkouts', (t) => {
    // The reminder whose resume address opened this checkout (a rebuilt one), for the recovered figures.
    t.integer('reminder_id').references('checkout_reminders.id').onDelete('SET NULL');
  });

  await knex.schema.createTable('reminder_opt_outs', (t) => {
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('contact', 254).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['store_id', 'contact']);
  });

  await knex.schema.alterTable('stores', (t) => {
    t.integer('abandoned_checkout_minutes').notNullable().defaultTo(60);
    t.string('abandoned_checkout_coupon', 100);
  });
  await knex.raw(
    "create index checkouts_unpaid_created on checkouts (created_at) where status in ('created', 'payment_initiated')",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists checkouts_unpaid_created');
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('abandoned_checkout_minutes');
    t.dropColumn('abandoned_checkout_coupon');
  });
  await knex.schema.dropTableIfExists('reminder_opt_outs');
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('reminder_id');
    t.dropColumn('creator_id');
  });
  await knex.schema.dropTableIfExists('checkout_reminders');
  await knex.schema.dropTableIfExists('creator_commissions');
  await knex.schema.dropTableIfExists('creators');
  await knex.schema.dropTableIfExists('sales');
}
