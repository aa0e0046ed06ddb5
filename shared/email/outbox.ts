import { randomUUID } from 'node:crypto';
import type { EmailSendResult, Mailer } from './types';

/**
 * Development driver: sends nothing. The e-mail's row keeps its subject, text part and attachment names
 * (shared/services/emails/deliver.ts), which GET /__dev/outbox?to=ADDRESS shows.
 */
export class OutboxMailer implements Mailer {
  readonly driver = 'outbox' as const;

  send(): Promise<EmailSendResult> {
    return Promise.resolve({ messageId: `<outbox-${randomUUID()}@outbox.invalid>` });
  }

  close(): void {}
}
