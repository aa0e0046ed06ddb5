import nodemailer, { type Transporter } from 'nodemailer';
import { classifySmtpError } from './errors';
import type { EmailSendResult, Mailer, OutgoingEmail } from './types';

export interface SmtpSettings {
  /** SMTP_URL: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://… (TLS from the start). */
  url: string;
  /** Bounds on one delivery, so a silent server does not hold a worker slot. */
  timeoutMs?: number;
}

/**
 * Sends through any SMTP relay (Amazon SES, Postmark, Mailgun: docs/email.md) with nodemailer, over a small
 * pool of connections. nodemailer retries nothing itself: the `emails` queue owns retries, with back-off.
 */
export class SmtpMailer implements Mailer {
  readonly driver = 'smtp' as const;
  private readonly transport: Transporter;

  constructor(settings: SmtpSettings) {
    const timeout = settings.timeoutMs ?? 30_000;
    const url = new URL(settings.url);
    this.transport = nodemailer.createTransport({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : url.protocol === 'smtps:' ? 465 : 587,
      secure: url.protocol === 'smtps:',
      auth: url.username
        ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
        : undefined,
      pool: true,
      maxConnections: 5,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      // Never log: the SMTP dialogue carries the message (keys) and the AUTH exchange.
      logger: false,
      debug: false,
    });
  }

  async send(email: OutgoingEmail): Promise<EmailSendResult> {
    try {
      const info = await this.transport.sendMail({
        from: { name: email.from.name, address: email.from.address },
        to: email.to,
        replyTo: email.replyTo,
        subject: email.subject,
        html: email.html,
        text: email.text,
        headers: { 'Content-Language': email.locale },
        attachments: email.attachments.map((a) => ({
          filename: a.filename,
          contentType: a.contentType,
          content: a.content,
        })),
      });
      return { messageId: String(info.messageId) };
    } catch (err) {
      throw classifySmtpError(err);
    }
  }

  close(): void {
    this.transport.close();
  }
}
