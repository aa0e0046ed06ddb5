import type { Knex } from 'knex';
import { enqueue, Queues } from '../../queues';
import { stageJob, StagedJob } from '../../queues/outbox';

/**
 * Queues the fulfilment of an order committed before (a reconciliation finding the order made already, in
 * case its job was lost). The deterministic job id makes the repeat harmless. A new order stages its job
 * with the order (stageFulfilment).
 */
export async function enqueueFulfilment(queues: Queues, orderId: number): Promise<void> {
  // A re-ask for an order committed before (reconcile finding it made): no transaction exists to stage in.
  await enqueue(queues, 'fulfilment', { orderId, event: 'created' }, { jobId: `order-created-${orderId}` });
}

/** The same job, staged in the transaction that created the order (shared/queues/outbox.ts). */
export function stageFulfilment(trx: Knex.Transaction, orderId: number): Promise<StagedJob> {
  return stageJob(trx, 'fulfilment', { orderId, event: 'created' }, { jobId: `order-created-${orderId}` });
}
