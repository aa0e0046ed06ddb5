import type { DomainJobs } from '../../queues/handlers';
import { deliverOtp } from './deliver';

/** The OTP domain's queue work: one code delivery per job (WhatsApp first, or SMS only on resend). */
export const otpJobs = {
  otp: { job: (deps, data) => deliverOtp(deps, data) },
} satisfies DomainJobs;
