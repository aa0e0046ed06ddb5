import { UnrecoverableError } from 'bullmq';
import { EmailBouncedError } from '../../shared/email';
import { dispatchingProcessor } from './dispatch';

/**
 * The `emails` queue: one buyer e-mail per job (docs/email.md; shared/services/emails/jobs.ts). A hard
 * bounce (5xx) fails the job at once and the e-mail shows `bounced`; a 4xx or a connection error is
 * retried with the job's back-off. Neither the message nor the address reaches the log.
 */
export const emailsProcessor = dispatchingProcessor('emails', {
  concurrency: 10,
  failure(err, job, deps) {
    if (err instanceof EmailBouncedError) {
      deps.logger.warn(
        { queue: 'emails', jobId: job.id, emailId: job.data.emailId, responseCode: err.responseCode },
        'e-mail bounced',
      );
      return new UnrecoverableError(`e-mail bounced (${err.responseCode})`);
    }
    return err instanceof Error ? err : new Error(String(err));
  },
});
