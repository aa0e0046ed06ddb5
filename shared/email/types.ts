/** One e-mail, ready for a driver: rendered, addressed, with its attachments' bytes. */
export interface OutgoingEmail {
  /** The sender: the store's name as display name, EMAIL_FROM's address. */
  from: { name: string; address: string };
  to: string;
  /** The store's support address, when it has one. */
  replyTo?: string;
  subject: string;
  html: string;
  text: string;
  /** `lang` of the message (Content-Language). */
  locale: 'ar' | 'en';
  attachments: EmailAttachment[];
}

export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface EmailSendResult {
  /** The Message-ID the server accepted, or the outbox's own id. */
  messageId: string;
}

/**
 * Delivers one e-mail. Throws EmailBouncedError for a permanent refusal (5xx) and anything else for a
 * failure that may pass (4xx, connection trouble), which the job retries with back-off.
 */
export interface Mailer {
  readonly driver: 'smtp' | 'outbox';
  send(email: OutgoingEmail): Promise<EmailSendResult>;
  close(): void;
}
