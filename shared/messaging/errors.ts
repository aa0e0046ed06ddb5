import { UnrecoverableError } from 'bullmq';

export type DeliveryChannel = 'whatsapp' | 'sms';

/**
 * A message that can never be delivered as asked (invalid or opted-out number, rejected credentials, a
 * sender Twilio does not know). Retrying cannot help, so the job must fail where operators see it.
 */
export class PermanentDeliveryError extends Error {
  readonly code = 'DELIVERY_FAILED_PERMANENTLY';

  constructor(
    message: string,
    /** The provider's error code (Twilio's numeric code as a string), when it gave one. */
    readonly providerCode: string | null,
    readonly channel: DeliveryChannel,
  ) {
    super(message);
    this.name = 'PermanentDeliveryError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * A delivery that may succeed later: the provider throttled us, answered 5xx, or could not be reached.
 * The job is retried with the queue's exponential back-off; no other channel is tried, since a rate limit
 * is the sender's problem and would hit the fallback channel too.
 */
export class RetryableDeliveryError extends Error {
  readonly code = 'DELIVERY_DEFERRED';

  constructor(
    message: string,
    readonly providerCode: string | null,
    readonly channel: DeliveryChannel,
    readonly rateLimited: boolean,
  ) {
    super(message);
    this.name = 'RetryableDeliveryError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * Maps what a messenger threw to BullMQ's semantics, for the processors that deliver messages:
 * a permanent failure becomes an UnrecoverableError (the job fails at once and stays in the failed set),
 * anything else is rethrown as is, so BullMQ retries it with back-off.
 */
export function deliveryJobError(err: unknown): Error {
  if (err instanceof PermanentDeliveryError) {
    const code = err.providerCode ? ` (provider code ${err.providerCode})` : '';
    return new UnrecoverableError(`${err.channel} delivery failed permanently${code}: ${err.message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}
