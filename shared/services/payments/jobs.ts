import type { DomainJobs } from '../../queues/handlers';
import type { ReconcileHooks } from './context';
import { createProviderSession } from './session';
import { reconcilePayment } from './reconcile';
import { processWebhookEvent } from './webhooks';

/**
 * The payments domain's queue work: open a provider session (initiate), process a stored webhook event,
 * re-check a payment with its provider (reconcile). `hooks` are failure points tests inject; production
 * passes none. Sending a refund is the orders domain's job (orders/jobs.ts).
 */
export function paymentJobsWith(hooks?: ReconcileHooks) {
  return {
    payments: {
      initiate: (deps, data, run) =>
        createProviderSession({ ...deps, hooks }, data.paymentId, { finalAttempt: run.finalAttempt }),
      webhook: (deps, data) => processWebhookEvent({ ...deps, hooks }, data.webhookEventId),
      reconcile: (deps, data) => reconcilePayment({ ...deps, hooks }, data.paymentId, data.reason),
    },
  } satisfies DomainJobs;
}

export const paymentJobs = paymentJobsWith();
