import type { DomainJobs } from '../../queues/handlers';
import { sendOrderNotice } from './order-notice';

/** The notices domain's queue work: the store owners' notice of a new paid order. */
export const noticeJobs = {
  messages: { order_notice: (deps, data) => sendOrderNotice(deps, data.orderId) },
} satisfies DomainJobs;
