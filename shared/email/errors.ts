/**
 * The SMTP server refused the message for good (a 5xx answer: unknown mailbox, rejected sender or content).
 * Sending it again would get the same answer: the e-mail is marked `bounced` and its job stops
 * (docs/email.md, "Retries and bounces").
 */
export class EmailBouncedError extends Error {
  readonly code = 'EMAIL_BOUNCED';

  constructor(
    message: string,
    /** The server's reply code, e.g. 550. */
    readonly responseCode: number,
  ) {
    super(message);
    this.name = 'EmailBouncedError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * A failure that may pass: a 4xx answer (greylisting, a full mailbox, throttling), a dropped connection or
 * a timeout. The job is retried with back-off.
 */
export class EmailDeferredError extends Error {
  readonly code = 'EMAIL_DEFERRED';

  constructor(
    message: string,
    /** The server's reply code, or null when no answer came (connection trouble). */
    readonly responseCode: number | null,
  ) {
    super(message);
    this.name = 'EmailDeferredError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** Sorts what nodemailer threw: a 5xx reply is a hard bounce, everything else is worth another try. */
export function classifySmtpError(err: unknown): EmailBouncedError | EmailDeferredError {
  const code = (err as { responseCode?: unknown }).responseCode;
  // nodemailer's messages quote the server's reply, never the message or the credentials.
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  if (typeof code === 'number' && code >= 500 && code < 600) return new EmailBouncedError(message, code);
  return new EmailDeferredError(message, typeof code === 'number' ? code : null);
}
