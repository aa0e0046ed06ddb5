import { UnrecoverableError } from 'bullmq';
import { EmailBouncedError } from '../../shared/email';
import { deliverEmail } from '../../shared/services/emails';
import type { QueueProcessor } from './types';

/**
 * The `emails` queue: one buyer e-mail per job (docs/email.md). A hard bounce (5xx) fails the job at once
 * and the e-mail shows `bounced`; a 4xx or a connection error is retried with the job's back-off. Neither
 * the message nor the address reaches the log.
 */
export const emailsProcessor: QueueProcessor<'emails'> = {
  concurrency: 10,
  async process(job, deps) {
    const attempts = job.opts.attempts ?? 1;
    try {
      const outcome = await deliverEmail(deps, job.data.emailId, {
        finalAttempt: job.attemptsMade + 1 >= attempts,
      });
      deps.logger.info({ queue: 'emails', jobId: job.id, emailId: job.data.emailId, outcome }, 'e-mail');
      return outcome;
    } catch (err) {
      if (err instanceof EmailBouncedError) {
        deps.logger.warn(
          { queue: 'emails', jobId: job.id, emailId: job.data.emailId, responseCode: err.responseCode },
          'e-mail bounced',
        );
        throw new UnrecoverableError(`e-mail bounced (${err.responseCode})`);
      }
      throw err instanceof Error ? err : new Error(String(err));
    }
  },
};
