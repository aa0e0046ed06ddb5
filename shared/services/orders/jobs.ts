import type { DomainJobs } from '../../queues/handlers';
import { sendRefundAndWithdraw } from './refund';

/** The orders domain's queue work: send a refund to the provider, then withdraw what it paid for. */
export const orderJobs = {
  payments: { refund: (deps, data) => sendRefundAndWithdraw(deps, data.refundId) },
} satisfies DomainJobs;
