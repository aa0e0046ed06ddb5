import type { DomainJobs } from '../../queues/handlers';
import { deliverEmail } from './deliver';

/** The e-mail domain's queue work: one buyer e-mail per job, the last attempt recording the failure. */
export const emailJobs = {
  emails: { job: (deps, data, run) => deliverEmail(deps, data.emailId, { finalAttempt: run.finalAttempt }) },
} satisfies DomainJobs;
