import type { DomainJobs } from '../../queues/handlers';
import { sendCheckoutReminder } from './abandoned';

/** The growth domain's queue work: an unpaid checkout's one reminder. */
export const growthJobs = {
  messages: { checkout_reminder: (deps, data) => sendCheckoutReminder(deps, data.reminderId) },
} satisfies DomainJobs;
