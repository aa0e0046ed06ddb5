import { enqueue, Queues } from '../../queues';

/**
 * Queues the fulfilment of an order that was just created. The deterministic job id lets the payments
 * sweep (or an operator) enqueue it again without running fulfilment twice.
 */
export async function enqueueFulfilment(queues: Queues, orderId: number): Promise<void> {
  await enqueue(queues, 'fulfilment', { orderId, event: 'created' }, { jobId: `order-created-${orderId}` });
}
