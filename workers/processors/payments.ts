import { UnrecoverableError } from 'bullmq';
import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import { PaymentProviders, ProviderRejectedError } from '../../shared/providers/types';
import {
  createProviderSession,
  PaymentsContext,
  processWebhookEvent,
  reconcilePayment,
  ReconcileHooks,
} from '../../shared/services/payments';
import { sendRefundAndWithdraw } from '../../shared/services/orders/refund';
import type { QueueProcessor } from './types';

export interface PaymentsProcessorOptions {
  /** Adapters to use instead of the configured ones (tests). */
  providers?: (deps: Deps) => PaymentProviders;
  /** Failure points injected by tests; production passes none. */
  hooks?: ReconcileHooks;
}

/** A failure no retry can fix: the payment or event is gone, or the provider refused the request as made. */
function permanent(err: unknown): boolean {
  return err instanceof NotFoundError || err instanceof ProviderRejectedError;
}

/**
 * The `payments` queue: opens provider sessions (initiate), processes stored webhook events (webhook),
 * re-checks payments with their provider (reconcile: sweep, return from the provider) and sends refunds
 * to the provider that took the payment (refund; the refund stays pending while the provider is out). Provider outages
 * are retried with back-off; refusals fail the job at once. Credentials are decrypted inside the services,
 * per call, and never reach the job data or the log.
 */
export function createPaymentsProcessor(options: PaymentsProcessorOptions = {}): QueueProcessor<'payments'> {
  return {
    concurrency: 10,
    async process(job, deps) {
      const ctx: PaymentsContext = {
        ...deps,
        providers: options.providers ? options.providers(deps) : deps.providers,
        hooks: options.hooks,
      };
      const data = job.data;
      try {
        let result: unknown;
        switch (data.kind) {
          case 'initiate': {
            const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
            result = await createProviderSession(ctx, data.paymentId, { finalAttempt });
            break;
          }
          case 'webhook':
            result = await processWebhookEvent(ctx, data.webhookEventId);
            break;
          case 'reconcile':
            result = await reconcilePayment(ctx, data.paymentId, data.reason);
            break;
          case 'refund':
            result = await sendRefundAndWithdraw({ ...ctx, config: deps.config }, data.refundId);
            break;
        }
        deps.logger.info({ queue: 'payments', jobId: job.id, kind: data.kind, result }, 'payments job done');
        return result;
      } catch (err) {
        if (permanent(err)) throw new UnrecoverableError((err as Error).message);
        throw err;
      }
    },
  };
}

export const paymentsProcessor = createPaymentsProcessor();
