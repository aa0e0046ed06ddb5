import { NotFoundError } from '../../shared/errors';
import { dispatchingProcessor, permanentWhen } from './dispatch';

/** The `fulfilment` queue: one job per order event (fulfilment/jobs.ts); the service is safe to run twice. */
export const fulfilmentProcessor = dispatchingProcessor('fulfilment', {
  concurrency: 5,
  failure: permanentWhen((err) => err instanceof NotFoundError),
});
