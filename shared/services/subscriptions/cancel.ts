import type { Knex } from 'knex';
import { ProductPlan, Subscription } from '../../../db/models';
import { InvalidError, NotFoundError, ValidationError } from '../../errors';
import type { Queues } from '../../queues';
import { recordMerchantEvent } from '../../events/merchant-webhooks';
import { dispatchDeliveries } from '../merchant/webhooks/events';
import { endSubscription, lockSubscription, subscriptionEvent, voidRenewalLinks } from './lifecycle';
import { enqueueSubscriptionMessage } from './messages';
import { isRecurring } from './plans';
import { proposeTerms } from './terms';

export interface ChangeDeps {
  knex: Knex;
  queues: Queues;
  config: { merchantWebhookRetryDelayMs: number };
}

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';
export const SUBSCRIPTION_ENDED = 'The subscription has ended';

/**
 * Stops a subscription's renewals, by the merchant (Merchant API) or the buyer (their subscription page).
 *
 * - at period end: it stays `active` with `cancel_at_period_end`, renews no more, and is `cancelled` when
 *   the period is over (the scheduler's pass takes back what the period granted then);
 * - now: `cancelled` at once; what was paid for the current period (a license's expiry) is left to run out.
 *
 * Cancelling a cancelled or expired subscription changes nothing. `storeId` null: the buyer's capability
 * link (any store).
 */
export async function cancelSubscription(
  deps: ChangeDeps,
  storeId: number | null,
  id: number,
  opts: { atPeriodEnd: boolean },
  now: Date = new Date(),
): Promise<{ changed: boolean }> {
  const result = await deps.knex.transaction(async (trx) => {
    const sub = await lockSubscription(trx, id);
    if (!sub || (storeId !== null && sub.store_id !== storeId))
      throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    if (sub.status === 'cancelled' || sub.status === 'expired') return { changed: false, deliveries: [] };
    // No renewal is paid any more: an outstanding renewal link stops taking payments at once.
    await voidRenewalLinks(trx, [sub.id]);
    if (opts.atPeriodEnd && sub.current_period_end !== null) {
      if (sub.cancel_at_period_end) return { changed: false, deliveries: [] };
      await Subscription.query(trx)
        .patch({ cancel_at_period_end: true, cancelled_at: now })
        .where('id', sub.id);
      const deliveries = await recordMerchantEvent(
        trx,
        sub.store_id,
        subscriptionEvent('subscription.updated', `cancel-at-period-end`, sub, {
          cancel_at_period_end: true,
          current_period_end: new Date(sub.current_period_end).toISOString(),
        }),
        now,
      );
      return { changed: true, deliveries };
    }
    // Ends now: past_due included (nothing was paid for the period it is in).
    const lapsed = sub.status === 'past_due';
    await Subscription.query(trx).patch({ status: 'cancelled', cancelled_at: now }).where('id', sub.id);
    const { deliveries } = lapsed
      ? await endSubscription(trx, { ...sub, cancelled_at: now } as Subscription, 'cancelled', now)
      : {
          deliveries: await recordMerchantEvent(
            trx,
            sub.store_id,
            {
              ...subscriptionEvent('subscription.cancelled', '', { ...sub, status: 'cancelled' }),
              id: `subscription.cancelled:${sub.id}`,
            },
            now,
          ),
        };
    return { changed: true, deliveries };
  });
  await dispatchDeliveries(deps, result.deliveries);
  if (result.changed) await enqueueSubscriptionMessage(deps.queues, id, 'cancelled', null, 0);
  return { changed: result.changed };
}

/**
 * A plan change (another recurring plan of the same product): the renewal that takes it charges the new
 * plan's price and runs for its duration. One that costs no more takes effect at the next period; a
 * dearer one is announced to the buyer and waits for the first renewal PRICE_NOTICE_DAYS after the
 * notice (terms.ts). Choosing the current plan again withdraws a waiting change.
 */
export async function changeSubscriptionPlan(
  deps: ChangeDeps,
  storeId: number,
  id: number,
  planId: number,
  now: Date = new Date(),
): Promise<void> {
  const result = await deps.knex.transaction(async (trx) => {
    const sub = await lockSubscription(trx, id);
    if (!sub || sub.store_id !== storeId) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    if (sub.status === 'cancelled' || sub.status === 'expired') throw new InvalidError(SUBSCRIPTION_ENDED);
    const plan = await ProductPlan.query(trx).findById(planId);
    if (!plan || plan.product_id !== sub.product_id || !isRecurring(plan.duration)) {
      throw ValidationError.field(
        'plan_id',
        'plan_id must be a monthly, quarterly or yearly plan of the subscription’s product',
      );
    }
    const proposal = await proposeTerms(
      trx,
      sub,
      { planId: plan.id, priceMinor: Number(plan.price_minor) },
      now,
    );
    if (proposal.kind === 'unchanged') return { deliveries: [], noticeId: null };
    const next = plan.id === sub.plan_id ? null : plan.id;
    const deliveries = await recordMerchantEvent(
      trx,
      sub.store_id,
      subscriptionEvent('subscription.updated', `plan-${next ?? sub.plan_id}-${now.getTime()}`, sub, {
        next_plan_id: next,
      }),
      now,
    );
    return { deliveries, noticeId: proposal.kind === 'announced' ? proposal.noticeId : null };
  });
  await dispatchDeliveries(deps, result.deliveries);
  if (result.noticeId !== null) {
    await enqueueSubscriptionMessage(deps.queues, id, 'price_rise', null, result.noticeId);
  }
}
