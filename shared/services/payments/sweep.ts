import type { Knex } from 'knex';
import { HOSTED_PROVIDERS } from '../../providers/types';
import { enqueue, Queues } from '../../queues';
import { sweepRefunds } from '../refunds/sweep';
import { resumeLostCharges } from '../subscriptions/due';
import { enqueueSessionJob } from './initiate';

/** A payment still open this long after it was started is asked about (its webhook may have been lost). */
export const SWEEP_AFTER_MS = 3 * 60 * 1000;
/** After this long nobody is paying it any more: it is expired and no longer asked about. */
export const SWEEP_HORIZON_MS = 2 * 24 * 3600 * 1000;
/** Payments asked about per run; the next run (2 minutes later) takes the rest. */
const BATCH = 500;

/**
 * The `sweep-payments` maintenance task (every 2 minutes): for every hosted-provider payment still pending
 * or initiated a few minutes after it started, enqueue a reconcile job (or, when its provider session was
 * never recorded, the initiate job again). Job ids carry the minute, so two schedulers' runs of one tick
 * add each job once, and a payment is asked about at most once per tick. Payments past the horizon are
 * expired, with their audit rows, in one statement. Provider refunds still pending get their job back
 * when it was lost (sweepRefunds). A renewal's charge of a saved card is not a session: it is left out of
 * both, and asked of its provider again when its answer was lost (resumeLostCharges).
 */
export async function sweepPayments(
  knex: Knex,
  now: Date = new Date(),
  ctx: { queues: Queues },
): Promise<Record<string, number>> {
  const minute = Math.floor(now.getTime() / 60_000);
  const horizon = new Date(now.getTime() - SWEEP_HORIZON_MS);
  const open = await knex('payments')
    .whereIn('status', ['pending', 'initiated'])
    .whereIn('provider', HOSTED_PROVIDERS)
    .whereNotExists(renewalCharge(knex))
    .where('created_at', '<', new Date(now.getTime() - SWEEP_AFTER_MS))
    .where('created_at', '>', horizon)
    .orderBy('created_at')
    .limit(BATCH)
    .select<{ id: number; provider_payment_id: string | null }[]>('id', 'provider_payment_id');

  let reconcile = 0;
  let initiate = 0;
  for (const payment of open) {
    if (payment.provider_payment_id) {
      // The sweep only reads: no transaction exists to stage the job in; the job id dedupes.
      await enqueue(
        ctx.queues,
        'payments',
        { kind: 'reconcile', paymentId: payment.id, reason: 'sweep' },
        { jobId: `payment-reconcile-${payment.id}-sweep-${minute}` },
      );
      reconcile += 1;
    } else {
      await enqueueSessionJob(ctx.queues, payment.id);
      initiate += 1;
    }
  }

  const { rows } = await knex.raw<{ rows: { expired: string }[] }>(
    `with due as (
       select id, status from payments
        where status in ('pending', 'initiated') and provider = any(:providers) and created_at <= :horizon
          and not exists (select 1 from subscription_renewals r where r.payment_id = payments.id)
        order by id
        limit :batch
        for update skip locked
     ),
     moved as (
       update payments p set status = 'expired', updated_at = :now
         from due where p.id = due.id
       returning p.id, due.status as from_status
     ),
     audited as (
       insert into payment_events (payment_id, from_status, to_status, source, data)
       select id, from_status, 'expired', 'sweep', '{}'::jsonb from moved
       returning id
     )
     select count(*) as expired from audited`,
    { providers: [...HOSTED_PROVIDERS], horizon, now, batch: BATCH },
  );
  const refunds = await sweepRefunds(knex, now, ctx);
  const renewals = await resumeLostCharges(knex, now, ctx.queues);
  return { reconcile, initiate, expired: Number(rows[0]?.expired ?? 0), refunds, renewals };
}

/**
 * A renewal's charge of a saved card (subscription_renewals.payment_id): it has no provider session to
 * open or expire; its answer, when lost, is asked again under its own idempotency key (resumeLostCharges).
 */
function renewalCharge(knex: Knex): Knex.QueryBuilder {
  return knex('subscription_renewals as r').whereRaw('r.payment_id = payments.id').select(knex.raw('1'));
}
