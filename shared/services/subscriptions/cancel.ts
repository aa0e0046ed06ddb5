import { ProductPlan, Subscription } from '../../../db/models';
import { InvalidError, NotFoundError, ValidationError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import {
  endSubscription,
  lockSubscription,
  subscriptionEvent,
  voidRenewalLinks,
} from '../fulfilment/subscription-lifecycle';
import { isRecurring } from './plans';
import { proposeTerms } from './terms';

/** The subscription changes run in a unit of work of their own (`deps.tx`), which emits their events. */
export type ChangeDeps = TxDeps;

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
  // The buyer is told it was cancelled (with the event, so once), whichever way it ends.
  const told = { message: { event: 'cancelled' as const, renewalId: null, attempt: 0 } };
  return deps.tx(async (uow) => {
    const { trx } = uow;
    const sub = await lockSubscription(trx, id);
    if (!sub || (storeId !== null && sub.store_id !== storeId))
      throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    if (sub.status === 'cancelled' || sub.status === 'expired') return { changed: false };
    // No renewal is paid any more: an outstanding renewal link stops taking payments at once.
    await voidRenewalLinks(trx, [sub.id]);
    if (opts.atPeriodEnd && sub.current_period_end !== null) {
      if (sub.cancel_at_period_end) return { changed: false };
      await Subscription.query(trx)
        .patch({ cancel_at_period_end: true, cancelled_at: now })
        .where('id', sub.id);
      await uow.emit({
        ...subscriptionEvent('subscription.updated', `cancel-at-period-end`, sub, {
          cancel_at_period_end: true,
          current_period_end: new Date(sub.current_period_end).toISOString(),
        }),
        storeId: sub.store_id,
        at: now,
        facts: told,
      });
      return { changed: true };
    }
    // Ends now: past_due included (nothing was paid for the period it is in).
    const lapsed = sub.status === 'past_due';
    await Subscription.query(trx).patch({ status: 'cancelled', cancelled_at: now }).where('id', sub.id);
    if (lapsed) {
      await endSubscription(
        uow,
        { ...sub, cancelled_at: now } as Subscription,
        'cancelled',
        now,
        told.message,
      );
    } else {
      await uow.emit({
        ...subscriptionEvent('subscription.cancelled', '', { ...sub, status: 'cancelled' }),
        id: `subscription.cancelled:${sub.id}`,
        storeId: sub.store_id,
        at: now,
        facts: told,
      });
    }
    return { changed: true };
  });
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
  await deps.tx(async (uow) => {
    const { trx } = uow;
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
    if (proposal.kind === 'unchanged') return;
    const next = plan.id === sub.plan_id ? null : plan.id;
    await uow.emit({
      ...subscriptionEvent('subscription.updated', `plan-${next ?? sub.plan_id}-${now.getTime()}`, sub, {
        next_plan_id: next,
      }),
      storeId: sub.store_id,
      at: now,
      // A dearer plan is announced to the buyer (its notice names the message).
      facts:
        proposal.kind === 'announced'
          ? { message: { event: 'price_rise', renewalId: null, attempt: proposal.noticeId } }
          : {},
    });
  });
}

/**
 * Takes back a cancellation at period end (the buyer's "Resume" in their account): while the period it
 * was to end with is still running, the subscription renews again as before. A subscription already
 * ended (cancelled, expired) cannot be resumed: the buyer buys it again.
 */
export async function resumeSubscription(
  deps: ChangeDeps,
  id: number,
  now: Date = new Date(),
): Promise<{ changed: boolean }> {
  return deps.tx(async (uow) => {
    const sub = await lockSubscription(uow.trx, id);
    if (!sub) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
    if (sub.status === 'cancelled' || sub.status === 'expired') throw new InvalidError(SUBSCRIPTION_ENDED);
    if (!sub.cancel_at_period_end) return { changed: false };
    if (sub.current_period_end !== null && new Date(sub.current_period_end).getTime() <= now.getTime()) {
      throw new InvalidError(SUBSCRIPTION_ENDED);
    }
    await Subscription.query(uow.trx)
      .patch({ cancel_at_period_end: false, cancelled_at: null })
      .where('id', sub.id);
    await uow.emit({
      ...subscriptionEvent('subscription.updated', `resumed-${now.getTime()}`, sub, {
        cancel_at_period_end: false,
      }),
      storeId: sub.store_id,
      at: now,
    });
    return { changed: true };
  });
}
