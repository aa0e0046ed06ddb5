import type { Knex } from 'knex';
import type { BuyerLocale } from './buyer-messages';

/**
 * The language the buyer used at checkout (the checkout's `locale`, from `?lang=` or `Accept-Language`):
 * every message and e-mail about the order speaks it. English for an order without a checkout.
 */
export async function orderBuyerLocale(knex: Knex, orderId: number | null): Promise<BuyerLocale> {
  if (orderId === null) return 'en';
  const row = await knex('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .where('o.id', orderId)
    .first<{ locale: string | null } | undefined>('c.locale');
  return row?.locale === 'ar' ? 'ar' : 'en';
}
