import { NotFoundError } from '../../shared/errors';
import { dispatchingProcessor, permanentWhen } from './dispatch';

/** Housekeeping enqueued by the scheduler, one task per job (maintenance/jobs.ts); an unknown task fails for good. */
export const maintenanceProcessor = dispatchingProcessor('maintenance', {
  // Tasks sweep whole tables; running two at once would only make them contend for the same rows.
  concurrency: 1,
  failure: permanentWhen((err) => err instanceof NotFoundError),
});
