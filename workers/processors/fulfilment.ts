import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { fulfilOrder } from '../../shared/services/fulfilment';
import { emitFulfilmentEvents } from '../../shared/services/webhooks/order-events';
import type { QueueProcessor } from './types';

/** The `fulfilment` queue: one job per order event; the service is safe to run twice. */
export const fulfilmentProcessor: QueueProcessor<'fulfilment'> = {
  concurrency: 5,
  async process(job, deps) {
    try {
      const result = await fulfilOrder(deps, job.data.orderId, job.data.event);
      deps.logger.info({ queue: 'fulfilment', jobId: job.id, ...result }, 'order fulfilment done');
      await emitFulfilmentEvents(deps, job.data.orderId);
      return result;
    } catch (err) {
      if (err instanceof NotFoundError) throw new UnrecoverableError(err.message);
      throw err;
    }
  },
};
