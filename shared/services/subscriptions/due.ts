import type { Knex } from 'knex';
import { Subscription } from '../../../db/models';
import { enqueue, Queues } from '../../queues';
import { endSubscription, lockSubscription } from '../fulfilment/subscription-lifecycle';
import type { TxDeps } from '../../unit-of-work';
import { CARD_RENEWAL_WINDOW_MS, DUNNING_DAYS, LINK_RENEWAL_WINDOW_MS } from './renew';

/**
 * The scheduler's side of renewals (maintenance task `renew-subscriptions`, every few minutes). It only
 * finds what is due and enqueues one `subscriptions` job per subscription, period and attempt, under a
 * deterministic id: two schedulers, or two ticks before the worker got to it, add one job. The job itself
 * (renewSubscription) decides again under the subscription's lock, so an early or repeated job is harmless.
 * Then the ends: subscriptions whose last period ran out without a renewal are ended here.
 */

const BATCH = 500;
const DAY_MS = 86_400_000;
/** An attempt still `charging` this long after it started lost its job (a worker killed, Redis flushed). */
const STUCK_CHARGE_MS = 10 * 60 * 1000;

export interface DueContext {
  queues: Queues;
  /** The unit of work each lapse is ended in; it emits the subscription's events. */
  tx: TxDeps['tx'];
}

export function renewalJobId(subscriptionId: number, periodStart: Date, attempt: number): string {
  return `subscription-renew-${subscriptionId}-${periodStart.getTime()}-${attempt}`;
}

async function enqueueRenewal(queues: Queues, id: number, periodStart: Date, attempt: number): Promise<void> {
  // The renew-subscriptions task only reads: no transaction exists; the id names period and attempt.
  await enqueue(
    queues,
    'subscriptions',
    { subscriptionId: id, periodStart: periodStart.toISOString(), attempt },
    { jobId: renewalJobId(id, periodStart, attempt) },
  );
}

/** Enqueues every renewal that is due; answers how many of each kind. */
export async function enqueueDueRenewals(
  knex: Knex,
  now: Date,
  ctx: DueContext,
): Promise<Record<string, number>> {
  const cardHorizon = new Date(now.getTime() + CARD_RENEWAL_WINDOW_MS);
  const linkHorizon = new Date(now.getTime() + LINK_RENEWAL_WINDOW_MS);
  const firsts = (await knex('subscriptions as s')
    .leftJoin('subscription_renewals as r', function () {
      this.on('r.subscription_id', 's.id').andOn('r.period_start', 's.current_period_end');
    })
    .where('s.status', 'active')
    .where('s.cancel_at_period_end', false)
    .whereNotNull('s.current_period_end')
    .whereNull('r.id')
    .where((q) =>
      q
        .where((c) =>
          c.whereNotNull('s.payment_token_encrypted').where('s.current_period_end', '<=', cardHorizon),
        )
        .orWhere((l) =>
          l.whereNull('s.payment_token_encrypted').where('s.current_period_end', '<=', linkHorizon),
        ),
    )
    .orderBy('s.current_period_end')
    .limit(BATCH)
    .select('s.id', 's.current_period_end')) as { id: number; current_period_end: Date }[];
  for (const s of firsts) await enqueueRenewal(ctx.queues, s.id, new Date(s.current_period_end), 1);

  const retries = (await knex('subscription_renewals as r')
    .join('subscriptions as s', 's.id', 'r.subscription_id')
    .where('r.status', 'failed')
    .where('r.next_attempt_at', '<=', now)
    .whereIn('s.status', ['active', 'past_due'])
    .limit(BATCH)
    .select('r.subscription_id', 'r.period_start', 'r.attempts')) as {
    subscription_id: number;
    period_start: Date;
    attempts: number;
  }[];
  for (const r of retries) {
    // A failed attempt goes on to the next.
    await enqueueRenewal(ctx.queues, r.subscription_id, new Date(r.period_start), Number(r.attempts) + 1);
  }
  const resumed = await resumeLostCharges(knex, now, ctx.queues);
  return { due: firsts.length, retries: retries.length, resumed };
}

/**
 * Renewal charges whose answer was lost: the attempt is still `charging` STUCK_CHARGE_MS after it was
 * written (the provider call timed out and its job ran out of tries, or the worker died after sending).
 * Each gets a `subscriptions` job that asks the provider again under the same attempt and idempotency key
 * (renew.ts): the provider answers the charge it made, or makes the one it never received; either way
 * the period is settled once. The job id carries the STUCK_CHARGE_MS tick, so a job of the attempt that
 * failed or completed earlier does not swallow it, while two runs in one tick (this task and
 * `sweep-payments`, or two schedulers) add one job. Answers how many were enqueued.
 */
export async function resumeLostCharges(knex: Knex, now: Date, queues: Queues): Promise<number> {
  const stuck = (await knex('subscription_renewals as r')
    .join('subscriptions as s', 's.id', 'r.subscription_id')
    .where('r.status', 'charging')
    .where('r.updated_at', '<', new Date(now.getTime() - STUCK_CHARGE_MS))
    .whereIn('s.status', ['active', 'past_due'])
    .orderBy('r.updated_at')
    .limit(BATCH)
    .select('r.subscription_id', 'r.period_start', 'r.attempts')) as {
    subscription_id: number;
    period_start: Date;
    attempts: number;
  }[];
  const tick = Math.floor(now.getTime() / STUCK_CHARGE_MS);
  for (const r of stuck) {
    const periodStart = new Date(r.period_start);
    // A stuck charge is only read: no transaction exists; the id names the tick, so one job per tick.
    await enqueue(
      queues,
      'subscriptions',
      {
        subscriptionId: r.subscription_id,
        periodStart: periodStart.toISOString(),
        attempt: Number(r.attempts),
      },
      { jobId: `${renewalJobId(r.subscription_id, periodStart, Number(r.attempts))}-resume-${tick}` },
    );
  }
  return stuck.length;
}

/**
 * Periods that ran out with no renewal: a subscription cancelled at period end becomes `cancelled`, a
 * cancelled one has what it granted taken back, a renewal link left unpaid makes it `past_due`, and after
 * the dunning days `expired`. Each in its own short transaction with the row locked and re-checked.
 */
export async function endLapsedSubscriptions(
  knex: Knex,
  now: Date,
  ctx: DueContext,
): Promise<Record<string, number>> {
  const counts = { ended: 0, past_due: 0, expired: 0 };
  const lastTry = DUNNING_DAYS[DUNNING_DAYS.length - 1] ?? 0;
  const ending = (await knex('subscriptions')
    .whereNotNull('current_period_end')
    .where('current_period_end', '<=', now)
    .whereNull('ended_at')
    .where((q) =>
      q
        .where((a) => a.where('status', 'active').where('cancel_at_period_end', true))
        .orWhere('status', 'cancelled')
        .orWhere((l) => l.whereIn('status', ['active', 'past_due']).whereNull('payment_token_encrypted')),
    )
    .limit(BATCH)
    .pluck('id')) as number[];
  for (const id of ending) {
    const outcome = await ctx.tx(async (uow) => {
      const { trx } = uow;
      const sub = await lockSubscription(trx, id);
      if (!sub || sub.ended_at !== null || sub.current_period_end === null) return null;
      const end = new Date(sub.current_period_end).getTime();
      if (end > now.getTime()) return null;
      if (sub.status === 'cancelled' || sub.cancel_at_period_end) {
        await endSubscription(uow, sub, 'cancelled', now);
        return 'ended' as const;
      }
      if (sub.payment_token_encrypted !== null) return null;
      // A renewal link not paid by the end of the period.
      if (now.getTime() >= end + lastTry * DAY_MS) {
        await endSubscription(uow, sub, 'expired', now, { event: 'expired', renewalId: null, attempt: 0 });
        return 'expired' as const;
      }
      if (sub.status === 'active') {
        await Subscription.query(trx).patch({ status: 'past_due', past_due_since: now }).where('id', sub.id);
        return 'past_due' as const;
      }
      return null;
    });
    if (outcome) counts[outcome] += 1;
  }
  return counts;
}

/** The maintenance task: enqueue what is due, then end what lapsed. */
export async function renewSubscriptionsTask(
  knex: Knex,
  now: Date = new Date(),
  ctx: DueContext,
): Promise<Record<string, number>> {
  const enqueued = await enqueueDueRenewals(knex, now, ctx);
  const ended = await endLapsedSubscriptions(knex, now, ctx);
  return { ...enqueued, ...ended };
}
