import { type DeliveryOptions, SsrfRefusedError } from '../../shared/services/webhooks';
import { webhookJobsWith } from '../../shared/services/webhooks/jobs';
import { DOMAIN_JOBS, dispatchingProcessor, permanentWhen } from './dispatch';
import type { QueueProcessor } from './types';

/**
 * The `merchant-webhooks` queue: one job per delivery (job id merchant-webhook-{deliveryId};
 * webhooks/jobs.ts). A failed attempt is retried with the job's exponential back-off (about a day in all);
 * after the last one the delivery is marked failed and the job stays in the dashboard's Failed list, where
 * Retry sends it again. An address the SSRF guard refuses fails at once (UnrecoverableError).
 */
export function createMerchantWebhooksProcessor(
  opts: DeliveryOptions = {},
): QueueProcessor<'merchant-webhooks'> {
  return dispatchingProcessor('merchant-webhooks', {
    concurrency: 10,
    tables: [webhookJobsWith(opts), ...Object.values(DOMAIN_JOBS)],
    failure: permanentWhen((err) => err instanceof SsrfRefusedError),
  });
}

export const merchantWebhooksProcessor = createMerchantWebhooksProcessor();
