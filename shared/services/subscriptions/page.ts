import type { Knex } from 'knex';
import { sha256 } from '../../crypto';
import { formatMoney } from '../../money';
import { cancelSubscription } from './cancel';
import type { TxDeps } from '../../unit-of-work';
import { SubscriptionLinks } from './links';

/**
 * The buyer's page of one subscription, reached through the capability link in every renewal message
 * (no sign-in: the link is the key). It shows the plan, the state, the period, the agreed price and a new
 * one announced (terms.ts), and cancels the renewal (at period end: what was paid for runs out).
 */
export type SubscriptionPage =
  | { kind: 'not_found' }
  | {
      kind: 'subscription';
      storeName: string;
      productName: string;
      planName: string;
      status: string;
      periodEnd: Date | null;
      cancelAtPeriodEnd: boolean;
      /** The agreed price of a period ("15.00 SAR"), and a new one waiting with the date it applies from. */
      price: string | null;
      nextPrice: { price: string; from: Date } | null;
      /** The buyer may still stop it renewing. */
      cancellable: boolean;
    };

const money = (minor: string | number, currency: string | null): string =>
  `${formatMoney(Number(minor), currency)} ${currency ?? ''}`.trim();

export async function subscriptionPage(
  deps: { knex: Knex; appSecret: string; appSecretPrevious?: readonly string[] },
  ref: string,
): Promise<SubscriptionPage> {
  const id = new SubscriptionLinks(deps.appSecret, deps.appSecretPrevious).parse(ref);
  if (id === null) return { kind: 'not_found' };
  const row = await deps
    .knex('subscriptions as s')
    .join('stores as st', 'st.id', 's.store_id')
    .join('products as p', 'p.id', 's.product_id')
    .join('product_plans as pl', 'pl.id', 's.plan_id')
    .where('s.id', id)
    .first<
      | {
          store: string;
          product: string;
          plan: string;
          status: string;
          current_period_end: Date | null;
          cancel_at_period_end: boolean;
          price_minor: string | number | null;
          currency: string | null;
          next_price_minor: string | number | null;
          next_terms_from: Date | null;
        }
      | undefined
    >(
      'st.name as store',
      'p.name as product',
      'pl.name as plan',
      's.status',
      's.current_period_end',
      's.cancel_at_period_end',
      's.price_minor',
      's.currency',
      's.next_price_minor',
      's.next_terms_from',
    );
  if (!row) return { kind: 'not_found' };
  return {
    kind: 'subscription',
    storeName: row.store,
    productName: row.product,
    planName: row.plan,
    status: row.status,
    periodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    price: row.price_minor === null ? null : money(row.price_minor, row.currency),
    nextPrice:
      row.next_price_minor === null || row.next_terms_from === null
        ? null
        : { price: money(row.next_price_minor, row.currency), from: row.next_terms_from },
    cancellable:
      (row.status === 'active' || row.status === 'past_due') &&
      !row.cancel_at_period_end &&
      row.current_period_end !== null,
  };
}

/** The buyer's cancel button: at period end (a past-due subscription ends now: its period is unpaid). */
export async function cancelFromPage(
  deps: TxDeps & { knex: Knex; appSecret: string; appSecretPrevious?: readonly string[] },
  ref: string,
): Promise<SubscriptionPage> {
  const id = new SubscriptionLinks(deps.appSecret, deps.appSecretPrevious).parse(ref);
  if (id === null) return { kind: 'not_found' };
  const current = await subscriptionPage(deps, ref);
  if (current.kind === 'subscription' && current.cancellable) {
    await cancelSubscription(deps, null, id, { atPeriodEnd: current.status === 'active' });
  }
  return subscriptionPage(deps, ref);
}

/**
 * Whether a payment link is a renewal's that cancelling its subscription voided (cancel.ts): its page says
 * the subscription was cancelled and that it cannot be paid, instead of "not found".
 */
export async function isVoidedRenewalLink(knex: Knex, checkoutUrl: string): Promise<boolean> {
  if (typeof checkoutUrl !== 'string' || !checkoutUrl.startsWith('rnw_') || checkoutUrl.length > 200) {
    return false;
  }
  const row = await knex('checkouts as c')
    .join('subscription_renewals as r', 'r.checkout_id', 'c.id')
    .join('subscriptions as s', 's.id', 'r.subscription_id')
    .where('c.token_hash', sha256(checkoutUrl))
    .where('c.source', 'renewal')
    .where('c.status', 'cancelled')
    .first<{ id: number } | undefined>('c.id');
  return row !== undefined;
}
