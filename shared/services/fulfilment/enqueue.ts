import type { Knex } from 'knex';
import { enqueue, Queues } from '../../queues';
import { stageJob, StagedJob } from '../../queues/outbox';

/**
 * Queues the fulfilment of an order that was just created. The deterministic job id lets the payments
 * sweep (or an operator) enqueue it again without running fulfilment twice.
 */
export async function enqueueFulfilment(queues: Queues, orderId: number): Promise<void> {
  // The sweep and an operator's retry write nothing: no transaction exists (a new order stages it).
  await enqueue(queues, 'fulfilment', { orderId, event: 'created' }, { jobId: `order-created-${orderId}` });
}

/** The same job, staged in the transaction that created the order (shared/queues/outbox.ts). */
export function stageFulfilment(trx: Knex.Transaction, orderId: number): Promise<StagedJob> {
  return stageJob(trx, 'fulfilment', { orderId, event: 'created' }, { jobId: `order-created-${orderId}` });
}
