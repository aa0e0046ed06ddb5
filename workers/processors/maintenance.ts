import { UnrecoverableError } from 'bullmq';
import { MAINTENANCE_TASKS } from '../../shared/services/maintenance';
import type { QueueProcessor } from './types';

/** Housekeeping enqueued by the scheduler, one task per job. */
export const maintenanceProcessor: QueueProcessor<'maintenance'> = {
  // Tasks sweep whole tables; running two at once would only make them contend for the same rows.
  concurrency: 1,
  async process(job, deps) {
    const { task, tick } = job.data;
    const run = MAINTENANCE_TASKS[task];
    if (!run) throw new UnrecoverableError(`Unknown maintenance task "${task}"`);
    const result = await run(deps.knex, undefined, { queues: deps.queues, config: deps.config, tx: deps.tx });
    deps.logger.info(
      { queue: 'maintenance', jobId: job.id, task, tick, ...result },
      `maintenance ${task} done`,
    );
    return result;
  },
};
