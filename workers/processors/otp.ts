import { deliveryJobError } from '../../shared/messaging';
import { dispatchingProcessor } from './dispatch';

/**
 * Delivers OTP codes (shared/services/otp/jobs.ts). A permanent delivery failure fails the job where the
 * dashboard shows it; throttling and outages are retried with back-off. The code itself never appears in
 * the job or the log.
 */
export const otpProcessor = dispatchingProcessor('otp', { concurrency: 10, failure: deliveryJobError });
