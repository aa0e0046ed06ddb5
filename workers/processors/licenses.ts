import { NotFoundError } from '../../shared/errors';
import { dispatchingProcessor, permanentWhen } from './dispatch';

/**
 * The `licenses` queue: key generation for one order item (licenses/jobs.ts; fulfilment does the same
 * inline, this serves an operator regenerating a missing key) and expiry before a given time
 * (maintenance/jobs.ts). Both are safe to run twice.
 */
export const licensesProcessor = dispatchingProcessor('licenses', {
  concurrency: 5,
  failure: permanentWhen((err) => err instanceof NotFoundError),
});
