import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import { PaymentProviders, ProviderRejectedError } from '../../shared/providers/types';
import type { ReconcileHooks } from '../../shared/services/payments';
import { paymentJobsWith } from '../../shared/services/payments/jobs';
import { DOMAIN_JOBS, dispatchingProcessor, permanentWhen } from './dispatch';
import type { QueueProcessor } from './types';

export interface PaymentsProcessorOptions {
  /** Adapters to use instead of the configured ones (tests). */
  providers?: (deps: Deps) => PaymentProviders;
  /** Failure points injected by tests; production passes none. */
  hooks?: ReconcileHooks;
}

/**
 * The `payments` queue: opens provider sessions (initiate), processes stored webhook events (webhook),
 * re-checks payments with their provider (reconcile: sweep, return from the provider): payments/jobs.ts;
 * and sends refunds to the provider that took the payment (refund; the refund stays pending while the
 * provider is out): orders/jobs.ts. Provider outages are retried with back-off; a refusal, or a payment
 * or event that is gone, fails the job at once. Credentials are decrypted inside the services, per call,
 * and never reach the job data or the log.
 */
export function createPaymentsProcessor(options: PaymentsProcessorOptions = {}): QueueProcessor<'payments'> {
  const { providers, hooks } = options;
  return dispatchingProcessor('payments', {
    concurrency: 10,
    tables: [paymentJobsWith(hooks), ...Object.values(DOMAIN_JOBS)],
    depsFor: providers ? (deps) => ({ ...deps, providers: providers(deps) }) : undefined,
    failure: permanentWhen((err) => err instanceof NotFoundError || err instanceof ProviderRejectedError),
  });
}

export const paymentsProcessor = createPaymentsProcessor();
