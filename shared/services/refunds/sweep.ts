import type { Knex } from 'knex';
import { OPEN_REFUND_STATES } from '../../../db/models';
import type { Queues } from '../../queues';
import { enqueueRefundJob } from './create';

/** A provider refund still pending this long after it was asked for may have lost its job. */
export const REFUND_SWEEP_AFTER_MS = 2 * 60 * 1000;
/** The first retry delay of a job the sweep adds (the API's own jobs use REFUND_RETRY_DELAY_MS). */
const SWEEP_RETRY_DELAY_MS = 30_000;
const BATCH = 500;

/**
 * Part of the `sweep-payments` task: enqueues the job of every provider refund still pending a few
 * minutes on. The job id is the refund's, so a refund whose job is waiting, retrying, or sits in the
 * failed set (for an operator's retry from the queue dashboard) gets no second job; only a refund whose
 * job was never added (Redis down at the commit) or has been removed gets one.
 */
export async function sweepRefunds(knex: Knex, now: Date, ctx: { queues: Queues }): Promise<number> {
  const pending = await knex('refunds')
    .whereIn('status', OPEN_REFUND_STATES)
    .where({ kind: 'provider' })
    .where('created_at', '<', new Date(now.getTime() - REFUND_SWEEP_AFTER_MS))
    .orderBy('id')
    .limit(BATCH)
    .pluck<number[]>('id');
  for (const id of pending) await enqueueRefundJob(ctx.queues, Number(id), SWEEP_RETRY_DELAY_MS);
  return pending.length;
}
