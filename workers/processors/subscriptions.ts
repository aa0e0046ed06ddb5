import { NotFoundError } from '../../shared/errors';
import { dispatchingProcessor, permanentWhen } from './dispatch';

/**
 * The `subscriptions` queue: one renewal of one subscription (subscriptions/jobs.ts). The service decides
 * again under the subscription's lock and charges through the period's one renewal row with a stable
 * idempotency key, so a job retried from the dashboard, or run twice, never charges twice. A provider
 * outage or an undecided charge is retried with back-off.
 */
export const subscriptionsProcessor = dispatchingProcessor('subscriptions', {
  concurrency: 5,
  failure: permanentWhen((err) => err instanceof NotFoundError),
});
