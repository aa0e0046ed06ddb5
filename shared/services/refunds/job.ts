import type { JobsOptions } from 'bullmq';
import { enqueue, type Queues } from '../../queues';

/** Attempts of a refund's provider job: 12, the first delay REFUND_RETRY_DELAY_MS doubling (docs/merchant.md). */
export const REFUND_ATTEMPTS = 12;

/** The refund job's id: one job per refund row, so enqueuing twice sends once. */
export const refundJobId = (refundId: number): string => `refund-${refundId}`;

/** The refund job's options, the same wherever it is queued (the refund.created subscriber, the sweep). */
export function refundJobOptions(refundId: number, retryDelayMs: number): JobsOptions & { jobId: string } {
  return {
    jobId: refundJobId(refundId),
    attempts: REFUND_ATTEMPTS,
    backoff: { type: 'exponential', delay: retryDelayMs },
  };
}

/**
 * Enqueues a pending refund's job directly: only the payments sweep does, which changes nothing in
 * Postgres (it re-sends what a lost enqueue left pending), so no transaction exists to stage it in. A
 * refund asked for is followed by its job through the `refund.created` event (shared/events/subscribers.ts).
 */
export async function enqueueRefundJob(
  queues: Queues,
  refundId: number,
  retryDelayMs: number,
): Promise<void> {
  // The sweep writes nothing: no transaction exists to stage the job in.
  await enqueue(queues, 'payments', { kind: 'refund', refundId }, refundJobOptions(refundId, retryDelayMs));
}
