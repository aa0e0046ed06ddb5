import type { DomainJobs } from '../../queues/handlers';
import { sendRefundMessage } from './notify';

/**
 * The refunds domain's queue work: the buyer's news that a refund succeeded. Sending a refund to the
 * provider is the orders domain's job (orders/jobs.ts): the goods are withdrawn once it succeeds.
 */
export const refundJobs = {
  messages: { refund: (deps, data) => sendRefundMessage(deps, data.refundId) },
} satisfies DomainJobs;
