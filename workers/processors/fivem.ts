import { NotFoundError } from '../../shared/errors';
import { dispatchingProcessor, permanentWhen } from './dispatch';

/** The `fivem` queue: puts an order's FiveM commands on its store's command queue, once (fulfilment/jobs.ts). */
export const fivemProcessor = dispatchingProcessor('fivem', {
  concurrency: 5,
  failure: permanentWhen((err) => err instanceof NotFoundError),
});
