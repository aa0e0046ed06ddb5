import type { Config } from '../config';
import { OutboxMailer } from './outbox';
import { SmtpMailer } from './smtp';
import type { Mailer } from './types';

export type { EmailAttachment, EmailSendResult, Mailer, OutgoingEmail } from './types';
export { classifySmtpError, EmailBouncedError, EmailDeferredError } from './errors';

/** The EMAIL_DRIVER's mailer (docs/email.md); loadConfig refuses `smtp` without SMTP_URL. */
export function createMailer(config: Pick<Config, 'email'>): Mailer {
  const { driver, smtpUrl } = config.email;
  if (driver === 'smtp') {
    if (!smtpUrl) throw new Error('The smtp e-mail driver needs SMTP_URL');
    return new SmtpMailer({ url: smtpUrl });
  }
  return new OutboxMailer();
}
