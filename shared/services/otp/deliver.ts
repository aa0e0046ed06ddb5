import { OtpSession } from '../../../db/models';
import type { Deps } from '../../deps';
import type { JobPayloads } from '../../queues';
import { BuyerLocale, otpMessageText } from '../../i18n/buyer-messages';

export type OtpDeliveryOutcome = 'sent' | 'superseded' | 'closed' | 'already-sent';

/** The only run of exactly four digits in the text is the code (docs/operations.md). */
export function otpMessageBody(code: string, locale: BuyerLocale = 'en'): string {
  return otpMessageText(code, locale);
}

/** The send key of one code of one OTP session: each resend (a new code version) is a new message. */
export function otpMessageKey(otpSessionId: number, codeVersion: number): string {
  return `otp:${otpSessionId}:v${codeVersion}`;
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
  // One message per session and code version: a retry after a crash between the send and the clearing
  // below finds the key sent and only clears (message_sends, docs/outages.md).
  const result = await deps.messenger.send({
    to: session.e164,
    body: otpMessageBody(code, job.locale ?? 'en'),
    route: job.route,
    purpose: 'otp',
    storeId: session.store_id,
    key: otpMessageKey(session.id, job.codeVersion),
  });
  await OtpSession.query(deps.knex)
    .patch({ code_encrypted: null })
    .where({ id: session.id, code_version: job.codeVersion });
  return result.duplicate ? 'already-sent' : 'sent';
}
