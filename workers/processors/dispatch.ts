import { UnrecoverableError } from 'bullmq';
import type { Deps } from '../../shared/deps';
import type { QueueName } from '../../shared/queues';
import { type DomainJobs, handlerFor, kindOf } from '../../shared/queues/handlers';
import { emailJobs } from '../../shared/services/emails/jobs';
import { fraudJobs } from '../../shared/services/fraud/jobs';
import { fulfilmentJobs } from '../../shared/services/fulfilment/jobs';
import { growthJobs } from '../../shared/services/growth/jobs';
import { licenseJobs } from '../../shared/services/licenses/jobs';
import { maintenanceJobs } from '../../shared/services/maintenance/jobs';
import { noticeJobs } from '../../shared/services/notices/jobs';
import { orderJobs } from '../../shared/services/orders/jobs';
import { otpJobs } from '../../shared/services/otp/jobs';
import { paymentJobs } from '../../shared/services/payments/jobs';
import { refundJobs } from '../../shared/services/refunds/jobs';
import { subscriptionJobs } from '../../shared/services/subscriptions/jobs';
import { webhookJobs } from '../../shared/services/webhooks/jobs';
import type { JobOf, QueueProcessor } from './types';

/**
 * Every domain's queue work, as its folder's jobs.ts declares it. A job's handler is the one table entry
 * for its queue and kind (test/unit/domain-jobs.test.ts: exactly one per kind).
 */
export const DOMAIN_JOBS: Readonly<Record<string, DomainJobs>> = {
  emails: emailJobs,
  fraud: fraudJobs,
  fulfilment: fulfilmentJobs,
  growth: growthJobs,
  licenses: licenseJobs,
  maintenance: maintenanceJobs,
  notices: noticeJobs,
  orders: orderJobs,
  otp: otpJobs,
  payments: paymentJobs,
  refunds: refundJobs,
  subscriptions: subscriptionJobs,
  webhooks: webhookJobs,
};

export interface DispatchOptions<N extends QueueName> {
  /** Jobs of this queue one worker process runs at once. */
  concurrency: number;
  /** The tables to look in (a test's processor replaces a domain's table with one built with its options). */
  tables?: readonly DomainJobs[];
  /** The dependencies the handler gets (a test's processor swaps the payment providers). */
  depsFor?: (deps: Deps) => Deps;
  /** The error the worker sees: an UnrecoverableError for a failure no retry can fix, else a retry. */
  failure?: (err: unknown, job: JobOf<N>, deps: Deps) => Error;
}

/**
 * A queue's processor that only dispatches: it finds the job's handler among the domains' tables, runs it,
 * logs the payload's ids and the outcome (payloads carry ids, never personal data), and hands a failure
 * to `failure`. A job no domain declares fails for good.
 */
export function dispatchingProcessor<N extends QueueName>(
  queue: N,
  options: DispatchOptions<N>,
): QueueProcessor<N> {
  const tables = options.tables ?? Object.values(DOMAIN_JOBS);
  return {
    concurrency: options.concurrency,
    async process(job, deps) {
      const handler = handlerFor(tables, queue, job.data);
      const kind = kindOf(job.data);
      if (!handler) throw new UnrecoverableError(`No handler for a ${queue} job of kind "${kind}"`);
      const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      try {
        const outcome = await handler(options.depsFor ? options.depsFor(deps) : deps, job.data, {
          id: job.id,
          finalAttempt,
        });
        const fields: Record<string, unknown> = { queue, jobId: job.id, ...(job.data as object), outcome };
        deps.logger.info(fields, `${queue} job done`);
        return outcome;
      } catch (err) {
        if (options.failure) throw options.failure(err, job, deps);
        throw err instanceof Error ? err : new Error(String(err));
      }
    },
  };
}

/** A NotFoundError-style failure (the row is gone) is permanent; anything else is retried. */
export function permanentWhen(test: (err: unknown) => boolean): (err: unknown) => Error {
  return (err) => {
    if (test(err)) return new UnrecoverableError((err as Error).message);
    return err instanceof Error ? err : new Error(String(err));
  };
}
