import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { queueFivemCommands } from '../../shared/services/fulfilment';
import type { QueueProcessor } from './types';

/** The `fivem` queue: puts an order's FiveM commands on its store's command queue, once. */
export const fivemProcessor: QueueProcessor<'fivem'> = {
  concurrency: 5,
  async process(job, deps) {
    try {
      const result = await queueFivemCommands(deps.knex, job.data.orderId);
      deps.logger.info(
        { queue: 'fivem', jobId: job.id, orderId: job.data.orderId, ...result },
        'fivem commands queued',
      );
      return result;
    } catch (err) {
      if (err instanceof NotFoundError) throw new UnrecoverableError(err.message);
      throw err;
    }
  },
};
