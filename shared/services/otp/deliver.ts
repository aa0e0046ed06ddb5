import { OtpSession } from '../../../db/models';
import type { Deps } from '../../deps';
import type { JobPayloads } from '../../queues';

export type OtpDeliveryOutcome = 'sent' | 'superseded' | 'closed' | 'already-sent';

/** The only run of exactly four digits in the text is the code (CONTRACT section 6). */
export function otpMessageBody(code: string): string {
  return `Your verification code is ${code}. Do not share it with anyone.`;
}

/**
 * Sends the code of one OTP session version. Safe to run twice: a job for a replaced code, a closed
 * session or a code already handed to the messenger does nothing. The encrypted code is cleared once the
 * message is out, so no copy outlives its delivery.
 */
export async function deliverOtp(
  deps: Pick<Deps, 'knex' | 'cipher' | 'messenger'>,
  job: JobPayloads['otp'],
): Promise<OtpDeliveryOutcome> {
  const session = await OtpSession.query(deps.knex).findById(job.otpSessionId);
  if (!session || session.code_version !== job.codeVersion) return 'superseded';
  if (session.status !== 'pending' || session.expires_at.getTime() <= Date.now()) return 'closed';
  if (!session.code_encrypted) return 'already-sent';

  const code = deps.cipher.decrypt(session.code_encrypted);
  await deps.messenger.send({
    to: session.e164,
    body: otpMessageBody(code),
    route: job.route,
    purpose: 'otp',
    storeId: session.store_id,
  });
  await OtpSession.query(deps.knex)
    .patch({ code_encrypted: null })
    .where({ id: session.id, code_version: job.codeVersion });
  return 'sent';
}
