import type { Knex } from 'knex';
import type { Subscription } from '../../../db/models';
import { stageJob } from '../../queues/outbox';
import type { UnitOfWork } from '../../unit-of-work';
import { lockSubscription } from '../fulfilment/subscription-lifecycle';
import { messageJob } from './messages';

/**
 * The price a subscriber agreed to (docs/subscriptions.md, "The price a subscriber agreed to").
 *
 * A subscription records the unit price of its plan as bought (`price_minor`, `currency`), and every
 * renewal charges that, never the plan's price of the day. New terms (the merchant changed the plan's
 * price, or moved the subscriber to another plan) wait on the subscription (`next_plan_id`,
 * `next_price_minor`, `next_terms_from`):
 *
 * - a price at or below the agreed one applies from the next renewal, with no wait;
 * - a rise is announced to the buyer first (their message, in their language, with the subscription's
 *   page where they cancel), and applies from the first renewal at least PRICE_NOTICE_DAYS after the
 *   notice: both the period's start and the moment of the charge must be past `next_terms_from`, so a
 *   renewal run early (the development route, a link sent days ahead) still charges the agreed price.
 *
 * A renewal fixes its price when it is first decided (subscription_renewals.price_minor), so its dunning
 * retries and its payment link all charge one amount.
 */

export const PRICE_NOTICE_DAYS = 7;
const DAY_MS = 86_400_000;
export const PRICE_NOTICE_MS = PRICE_NOTICE_DAYS * DAY_MS;

export interface RenewalTerms {
  planId: number;
  /** Unit price in minor units; null only for a subscription from before prices were recorded. */
  priceMinor: number | null;
  /** The waiting terms were taken. */
  newTerms: boolean;
}

const num = (v: number | string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);

/** The plan and unit price a renewal of the period starting `periodStart`, decided at `now`, charges. */
export function termsFor(
  sub: Pick<
    Subscription,
    'plan_id' | 'price_minor' | 'next_plan_id' | 'next_price_minor' | 'next_terms_from'
  >,
  periodStart: Date,
  now: Date,
): RenewalTerms {
  const from = sub.next_terms_from ? new Date(sub.next_terms_from).getTime() : null;
  const waiting = sub.next_plan_id !== null || sub.next_price_minor !== null;
  if (waiting && from !== null && Math.min(periodStart.getTime(), now.getTime()) >= from) {
    return {
      planId: sub.next_plan_id ?? sub.plan_id,
      priceMinor: num(sub.next_price_minor) ?? num(sub.price_minor),
      newTerms: true,
    };
  }
  return { planId: sub.plan_id, priceMinor: num(sub.price_minor), newTerms: false };
}

/** What `proposeTerms` did: nothing, terms that wait for no notice, or a rise with its notice. */
export type Proposal = { kind: 'unchanged' } | { kind: 'applied' } | { kind: 'announced'; noticeId: number };

/**
 * New terms for one subscription (locked by the caller, inside its transaction): plan `planId` at
 * `priceMinor` a unit. See the comment at the top of this file. A rise already announced at this very
 * price and plan is not announced again (nor is its date moved).
 */
export async function proposeTerms(
  trx: Knex.Transaction,
  sub: Subscription,
  target: { planId: number; priceMinor: number },
  now: Date,
): Promise<Proposal> {
  const agreed = num(sub.price_minor) ?? target.priceMinor;
  const samePlan = target.planId === sub.plan_id;
  const pendingPlan = sub.next_plan_id ?? sub.plan_id;
  const pendingPrice = num(sub.next_price_minor);
  const hasPending = sub.next_plan_id !== null || pendingPrice !== null;

  if (samePlan && target.priceMinor === agreed) {
    if (!hasPending && sub.next_terms_from === null) return { kind: 'unchanged' };
    await trx('subscriptions')
      .where('id', sub.id)
      .update({ next_plan_id: null, next_price_minor: null, next_terms_from: null, updated_at: now });
    return { kind: 'applied' };
  }
  if (target.priceMinor <= agreed) {
    if (hasPending && pendingPlan === target.planId && pendingPrice === target.priceMinor) {
      const from = sub.next_terms_from ? new Date(sub.next_terms_from).getTime() : Infinity;
      if (from <= now.getTime()) return { kind: 'unchanged' };
    }
    await trx('subscriptions')
      .where('id', sub.id)
      .update({
        next_plan_id: samePlan ? null : target.planId,
        next_price_minor: target.priceMinor,
        next_terms_from: now,
        updated_at: now,
      });
    return { kind: 'applied' };
  }
  // A rise: announced now, charged from the first renewal PRICE_NOTICE_DAYS on.
  if (
    hasPending &&
    pendingPlan === target.planId &&
    pendingPrice === target.priceMinor &&
    sub.next_terms_from !== null
  ) {
    return { kind: 'unchanged' };
  }
  const appliesFrom = new Date(now.getTime() + PRICE_NOTICE_MS);
  const [row] = await trx('subscription_price_notices')
    .insert({
      subscription_id: sub.id,
      store_id: sub.store_id,
      plan_id: target.planId,
      from_price_minor: agreed,
      to_price_minor: target.priceMinor,
      currency: sub.currency ?? (await storeCurrency(trx, sub.store_id)),
      applies_from: appliesFrom,
      created_at: now,
    })
    .returning('id');
  await trx('subscriptions')
    .where('id', sub.id)
    .update({
      next_plan_id: samePlan ? null : target.planId,
      next_price_minor: target.priceMinor,
      next_terms_from: appliesFrom,
      updated_at: now,
    });
  return { kind: 'announced', noticeId: Number((row as { id: number }).id) };
}

async function storeCurrency(trx: Knex.Transaction, storeId: number): Promise<string> {
  const row = await trx('stores').where('id', storeId).first<{ currency: string } | undefined>('currency');
  return row?.currency ?? 'SAR';
}

/** A plan whose price the merchant changed (Merchant API or dashboard): its id and new unit price. */
export interface PlanPriceChange {
  planId: number;
  priceMinor: number;
}

/**
 * The merchant changed plan prices (inside the product write's unit of work): every live subscription
 * on such a plan (or moving to it) gets the new price as new terms; each rise is announced to its buyer
 * by a message staged with the change (sent once committed, exactly once). Answers the notices made.
 */
export async function announcePlanPrices(
  uow: UnitOfWork,
  changes: readonly PlanPriceChange[],
  now: Date = new Date(),
): Promise<number> {
  const { trx } = uow;
  let notices = 0;
  for (const change of changes) {
    const ids = (await trx('subscriptions')
      .whereIn('status', ['active', 'past_due'])
      .whereNull('ended_at')
      .where((q) =>
        q
          .where('next_plan_id', change.planId)
          .orWhere((c) => c.whereNull('next_plan_id').where('plan_id', change.planId)),
      )
      .orderBy('id')
      .pluck('id')) as number[];
    for (const id of ids) {
      const sub = await lockSubscription(trx, id);
      if (!sub || sub.ended_at !== null || (sub.next_plan_id ?? sub.plan_id) !== change.planId) continue;
      if (sub.status !== 'active' && sub.status !== 'past_due') continue;
      const proposal = await proposeTerms(trx, sub, change, now);
      if (proposal.kind !== 'announced') continue;
      const job = messageJob(sub.id, 'price_rise', null, proposal.noticeId);
      uow.stage(await stageJob(trx, 'messages', job.data, job.opts));
      notices += 1;
    }
  }
  return notices;
}
