import { UnrecoverableError } from 'bullmq';
import { maintenanceContext, maintenanceRunner } from '../../shared/services/maintenance';
import type { QueueProcessor } from './types';

/** Housekeeping enqueued by the scheduler, one task per job. */
export const maintenanceProcessor: QueueProcessor<'maintenance'> = {
  // Tasks sweep whole tables; running two at once would only make them contend for the same rows.
  concurrency: 1,
  async process(job, deps) {
    const { task, tick } = job.data;
    const run = maintenanceRunner(task);
    if (!run) throw new UnrecoverableError(`Unknown maintenance task "${task}"`);
    const result = await run(deps.knex, undefined, maintenanceContext(deps));
    deps.logger.info(
      { queue: 'maintenance', jobId: job.id, task, tick, ...result },
      `maintenance ${task} done`,
    );
    return result;
  },
};
