import type { Knex } from 'knex';

/**
 * The client address a checkout was opened from, so the unpaid checkouts holding keys, stock or coupon
 * uses can be counted per address (and per phone) when a new one asks to hold more. The partial indexes
 * hold only what the count reads: live unpaid checkouts that hold something.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('checkouts', (t) => {
    t.string('client_ip', 45);
  });
  await knex.raw(
    `create index checkouts_holding_ip on checkouts (store_id, client_ip, expires_at)
      where status in ('created', 'payment_initiated') and (reserved or coupon_reserved)`,
  );
  await knex.raw(
    `create index checkouts_holding_phone on checkouts (store_id, customer_country_code, customer_phone, expires_at)
      where status in ('created', 'payment_initiated') and (reserved or coupon_reserved)`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists checkouts_holding_phone');
  await knex.raw('drop index if exists checkouts_holding_ip');
  await knex.schema.alterTable('checkouts', (t) => {
    t.dropColumn('client_ip');
  });
}
