import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { deliveryJobError } from '../../shared/messaging';
import { dispatchingProcessor } from './dispatch';

/**
 * The `messages` queue: customer notifications other than OTP, each kind declared by the domain that owns
 * it (fulfilment, refunds, growth, fraud, notices, subscriptions: their jobs.ts). A permanent delivery
 * failure fails the job where the dashboard shows it; outages are retried. Message bodies (keys) never
 * reach the log.
 */
export const messagesProcessor = dispatchingProcessor('messages', {
  concurrency: 10,
  failure: (err) =>
    err instanceof NotFoundError ? new UnrecoverableError(err.message) : deliveryJobError(err),
});
