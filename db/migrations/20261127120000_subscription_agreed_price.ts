import type { Knex } from 'knex';

/**
 * A subscriber keeps the price they agreed to (docs/subscriptions.md, "The price a subscriber agreed to").
 *
 * - `subscriptions.price_minor` / `currency`: the unit price of the plan as bought (the first order's line),
 *   in minor units, and its currency. Renewals charge this, never the plan's price of the day.
 * - `subscriptions.next_price_minor` / `next_terms_from`: terms waiting to apply (with `next_plan_id`): a
 *   price rise applies from the first renewal at or after `next_terms_from` (7 days after the buyer was
 *   told); a drop or an equal price waits for nothing.
 * - `subscription_price_notices`: each notice of a rise, what it said and when it was sent (and how: the
 *   buyer's message; e-mail when the platform sends it).
 * - `subscription_renewals.price_minor` / `new_terms`: the unit price a renewal charges, fixed when the
 *   renewal is first decided, and whether it took the waiting terms.
 *
 * Existing subscriptions agree to the plan's unit price on the checkout their first order paid (or the
 * plan's price when that is gone). A plan change waiting from before (never announced) applies at the next
 * renewal when it costs no more; a dearer one waits with no date, so it never applies until the merchant
 * makes it again (which announces it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.bigInteger('price_minor');
    t.string('currency', 3);
    t.bigInteger('next_price_minor');
    t.timestamp('next_terms_from', { useTz: true });
  });
  await knex.raw(`
    update subscriptions s
       set price_minor = coalesce(
             (select ci.unit_price_minor from orders o join checkout_items ci on ci.checkout_id = o.checkout_id
               where o.id = s.order_id and ci.plan_id = s.plan_id order by ci.position limit 1),
             (select c.unit_price_minor from orders o join checkouts c on c.id = o.checkout_id
               where o.id = s.order_id and c.plan_id = s.plan_id),
             (select pl.price_minor from product_plans pl where pl.id = s.plan_id)),
           currency = coalesce(
             (select o.currency from orders o where o.id = s.order_id),
             (select st.currency from stores st where st.id = s.store_id))`);
  await knex.raw(`
    update subscriptions s
       set next_price_minor = pl.price_minor,
           next_terms_from = case when pl.price_minor <= s.price_minor then now() end
      from product_plans pl
     where pl.id = s.next_plan_id`);
  await knex.raw(
    'alter table subscriptions add constraint subscriptions_price_check check (price_minor >= 0 and next_price_minor >= 0)',
  );

  await knex.schema.alterTable('subscription_renewals', (t) => {
    t.bigInteger('price_minor');
    t.boolean('new_terms').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('subscription_price_notices', (t) => {
    t.increments('id');
    t.integer('subscription_id').notNullable().references('subscriptions.id').onDelete('CASCADE').index();
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('plan_id').notNullable().references('product_plans.id');
    t.bigInteger('from_price_minor').notNullable();
    t.bigInteger('to_price_minor').notNullable();
    t.string('currency', 3).notNullable();
    // The first renewal at or after this instant charges the new price (7 days after the notice).
    t.timestamp('applies_from', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // When the buyer's message went out, and through which channels ('message', 'email').
    t.timestamp('sent_at', { useTz: true });
    t.specificType('channels', 'text[]').notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('subscription_price_notices');
  await knex.schema.alterTable('subscription_renewals', (t) => {
    t.dropColumn('price_minor');
    t.dropColumn('new_terms');
  });
  await knex.raw('alter table subscriptions drop constraint if exists subscriptions_price_check');
  await knex.schema.alterTable('subscriptions', (t) => {
    t.dropColumn('price_minor');
    t.dropColumn('currency');
    t.dropColumn('next_price_minor');
    t.dropColumn('next_terms_from');
  });
}
