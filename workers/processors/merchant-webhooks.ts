import { UnrecoverableError } from 'bullmq';
import {
  deliverWebhook,
  DeliveryOptions,
  markDeliveryFailed,
  SsrfRefusedError,
} from '../../shared/services/webhooks';
import type { QueueProcessor } from './types';

/**
 * The `merchant-webhooks` queue: one job per delivery (job id merchant-webhook-{deliveryId}). A failed
 * attempt is retried with the job's exponential back-off (about a day in all); after the last one the
 * delivery is marked failed and the job stays in the dashboard's Failed list, where Retry sends it again.
 * An address the SSRF guard refuses fails at once (UnrecoverableError).
 */
export function createMerchantWebhooksProcessor(
  opts: DeliveryOptions = {},
): QueueProcessor<'merchant-webhooks'> {
  return {
    concurrency: 10,
    async process(job, deps) {
      const { deliveryId } = job.data;
      try {
        const outcome = await deliverWebhook(deps, deliveryId, {
          timeoutMs: deps.config.merchantWebhookTimeoutMs,
          ...opts,
        });
        deps.logger.info(
          { queue: 'merchant-webhooks', jobId: job.id, deliveryId, outcome },
          'webhook delivery',
        );
        return outcome;
      } catch (err) {
        const message = (err as Error).message;
        if (err instanceof SsrfRefusedError) {
          await markDeliveryFailed(deps.knex, deliveryId, message);
          throw new UnrecoverableError(message);
        }
        const attempts = job.opts.attempts ?? 1;
        if (job.attemptsMade + 1 >= attempts) await markDeliveryFailed(deps.knex, deliveryId, message);
        throw err;
      }
    },
  };
}

export const merchantWebhooksProcessor = createMerchantWebhooksProcessor();
