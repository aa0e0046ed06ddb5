import type { DomainJobs } from '../../queues/handlers';
import { sendSubscriptionMessage } from './messages';
import { renewSubscription } from './renew';

/**
 * The subscriptions domain's queue work: one renewal of one subscription (a due period or a dunning
 * retry; decided again under the subscription's lock, charged once per period), and the buyer's messages
 * of renewals, failed charges, links and ends.
 */
export const subscriptionJobs = {
  subscriptions: { job: (deps, data) => renewSubscription(deps, data.subscriptionId) },
  messages: { subscription: (deps, data) => sendSubscriptionMessage(deps, data) },
} satisfies DomainJobs;
