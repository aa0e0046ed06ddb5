import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { renewSubscription } from '../../shared/services/subscriptions/renew';
import type { QueueProcessor } from './types';

/**
 * The `subscriptions` queue: one renewal of one subscription (the scheduler's job for a due period or a
 * dunning retry). The service decides again under the subscription's lock and charges through the
 * period's one renewal row with a stable idempotency key, so a job retried from the dashboard, or run
 * twice, never charges twice. A provider outage or an undecided charge is retried with back-off.
 */
export const subscriptionsProcessor: QueueProcessor<'subscriptions'> = {
  concurrency: 5,
  async process(job, deps) {
    try {
      const result = await renewSubscription(deps, job.data.subscriptionId);
      deps.logger.info(
        { queue: 'subscriptions', jobId: job.id, subscriptionId: job.data.subscriptionId, ...result },
        'subscription renewal',
      );
      return result;
    } catch (err) {
      if (err instanceof NotFoundError) throw new UnrecoverableError(err.message);
      throw err;
    }
  },
};
