import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { expireLicenses } from '../../shared/services/maintenance';
import { licenseOrderItem } from '../../shared/services/licenses';
import type { QueueProcessor } from './types';

/**
 * The `licenses` queue: key generation for one order item (fulfilment does the same inline; this serves an
 * operator regenerating a missing key) and expiry before a given time. Both are safe to run twice.
 */
export const licensesProcessor: QueueProcessor<'licenses'> = {
  concurrency: 5,
  async process(job, deps) {
    const data = job.data;
    if (data.kind === 'expire') return expireLicenses(deps.knex, new Date(data.before));
    try {
      return await licenseOrderItem(deps.knex, data.orderItemId);
    } catch (err) {
      if (err instanceof NotFoundError) throw new UnrecoverableError(err.message);
      throw err;
    }
  },
};
