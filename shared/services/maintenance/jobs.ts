import { NotFoundError } from '../../errors';
import type { DomainJobs } from '../../queues/handlers';
import { expireLicenses, maintenanceContext, maintenanceRunner } from './index';

/** Housekeeping enqueued by the scheduler, one task per job, and the licences' expiry before a time. */
export const maintenanceJobs = {
  maintenance: {
    async job(deps, data) {
      const run = maintenanceRunner(data.task);
      if (!run) throw new NotFoundError(`Unknown maintenance task "${data.task}"`);
      return run(deps.knex, undefined, maintenanceContext(deps));
    },
  },
  licenses: { expire: (deps, data) => expireLicenses(deps.knex, new Date(data.before)) },
} satisfies DomainJobs;
