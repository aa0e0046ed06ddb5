import type { DomainJobs } from '../../queues/handlers';
import { deliverWebhook, markDeliveryFailed, type DeliveryOptions } from './deliver';
import { SsrfRefusedError } from './ssrf';

/**
 * The webhooks domain's queue work: one signed delivery per job. A failed attempt is retried with the
 * job's back-off; the last one, or an address the SSRF guard refuses (never worth a retry), marks the
 * delivery failed before the error goes back to the worker.
 */
export function webhookJobsWith(opts: DeliveryOptions = {}) {
  return {
    'merchant-webhooks': {
      async job(deps, data, run) {
        try {
          return await deliverWebhook(deps, data.deliveryId, {
            timeoutMs: deps.config.merchantWebhookTimeoutMs,
            ...opts,
          });
        } catch (err) {
          if (err instanceof SsrfRefusedError || run.finalAttempt) {
            await markDeliveryFailed(deps.knex, data.deliveryId, (err as Error).message);
          }
          throw err;
        }
      },
    },
  } satisfies DomainJobs;
}

export const webhookJobs = webhookJobsWith();
