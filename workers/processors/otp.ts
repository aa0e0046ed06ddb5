import { deliveryJobError } from '../../shared/messaging';
import { deliverOtp } from '../../shared/services/otp/deliver';
import type { QueueProcessor } from './types';

/**
 * Delivers OTP codes: WhatsApp first with SMS fallback at start, SMS only on resend (the route is in the
 * job). A permanent delivery failure fails the job where the dashboard shows it; throttling and outages
 * are retried with back-off. The code itself never appears in the job or the log.
 */
export const otpProcessor: QueueProcessor<'otp'> = {
  concurrency: 10,
  async process(job, deps) {
    try {
      const outcome = await deliverOtp(deps, job.data);
      deps.logger.info(
        { queue: 'otp', jobId: job.id, session: job.data.otpSessionId, outcome },
        'otp delivery',
      );
      return outcome;
    } catch (err) {
      throw deliveryJobError(err);
    }
  },
};
