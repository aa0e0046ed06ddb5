import type { Knex } from 'knex';
import type { Checkout, PaymentMethodId, PlanDuration } from '../../../db/models';
import { checkoutLines } from '../checkout-records/lines';

/** Methods paid with a card a provider can save and charge again without the buyer. */
export const CARD_METHODS: readonly PaymentMethodId[] = ['card', 'mada', 'applepay'];

export function isCardMethod(method: string | null): boolean {
  return method !== null && (CARD_METHODS as readonly string[]).includes(method);
}

/** A plan renews unless it is lifetime. */
export function isRecurring(duration: PlanDuration | string | null | undefined): boolean {
  return duration === 'monthly' || duration === 'quarterly' || duration === 'yearly';
}

/**
 * The recurring plan a checkout sells (a subscription product's monthly, quarterly or yearly plan), or
 * null. The payment page shows the buyer's consent to renewals from it, and a card payment of such a
 * checkout asks its provider to save the card.
 */
export async function recurringPlanOf(
  knex: Knex,
  checkout: Checkout,
): Promise<{ duration: PlanDuration; price_minor: number } | null> {
  const lines = await checkoutLines(knex, checkout);
  for (const line of lines) {
    if (line.plan_id === null) continue;
    const row = await knex('product_plans as pl')
      .join('products as p', 'p.id', 'pl.product_id')
      .where('pl.id', line.plan_id)
      .first<{ duration: PlanDuration; price_minor: number; type: string } | undefined>(
        'pl.duration',
        'pl.price_minor',
        'p.type',
      );
    if (row && row.type === 'subscription' && isRecurring(row.duration)) {
      return { duration: row.duration, price_minor: Number(row.price_minor) };
    }
  }
  return null;
}
