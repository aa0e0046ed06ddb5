import type { DomainJobs } from '../../queues/handlers';
import { licenseOrderItem } from './index';

/** The licenses domain's queue work: the keys of one order item (an operator regenerating a missing key). */
export const licenseJobs = {
  licenses: { generate: (deps, data) => licenseOrderItem(deps.knex, data.orderItemId) },
} satisfies DomainJobs;
