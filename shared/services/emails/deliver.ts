import type { Knex } from 'knex';
import { documentPdf } from '../invoices/pdf';
import type { Cipher } from '../../crypto';
import { EmailBouncedError, type EmailAttachment, type Mailer } from '../../email';
import { documentPage } from '../invoices/read';
import { InvoicePageRefs } from '../invoices/refs';
import type { EmailAttachmentRef } from './send';
import { TEMPLATES, type Brand, type TemplateName } from './templates';

export interface DeliverEmailDeps {
  knex: Knex;
  cipher: Cipher;
  mailer: Mailer;
  appSecret: string;
  config: { publicBaseUrl: string; email: { from: string } };
}

export type DeliverOutcome = 'sent' | 'already_done';

interface EmailRow {
  id: string;
  store_id: number | null;
  to: string;
  locale: 'ar' | 'en';
  template: TemplateName;
  payload: string;
  status: string;
}

/** The bytes of an attachment the request named: today the order's invoice PDF (stores with a VAT number). */
async function attachmentFor(
  deps: DeliverEmailDeps,
  ref: EmailAttachmentRef,
): Promise<EmailAttachment | null> {
  const pageRef = new InvoicePageRefs(deps.appSecret).ref(ref.orderId);
  const page = await documentPage(
    deps.knex,
    { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
    pageRef,
  );
  // A store without a VAT number issues receipts, not invoices: there is nothing to attach.
  if (page.kind !== 'invoice') return null;
  return {
    filename: `invoice-${page.invoice.number}.pdf`,
    contentType: 'application/pdf',
    content: await documentPdf(page),
  };
}

/**
 * Sends one e-mail of the `emails` table (the job of the `emails` queue). The row is claimed `sending`
 * first; a row already `sent` or `bounced` is left alone, so a repeated job sends nothing. The one window
 * (as for text messages, docs/outages.md): a crash during the SMTP exchange leaves the row `sending` and
 * the retry sends again, since we cannot know whether the server took it.
 *
 * A 5xx answer marks the row `bounced` and throws EmailBouncedError (the job stops); anything else is
 * written on the row (`queued` again) and rethrown for the queue's back-off, `failed` after the last
 * attempt. A `failed` row may be sent again (an operator retrying the job from the queue dashboard).
 */
export async function deliverEmail(
  deps: DeliverEmailDeps,
  emailId: number,
  opts: { finalAttempt: boolean },
): Promise<DeliverOutcome> {
  const [row] = await deps
    .knex('emails')
    .where({ id: emailId })
    .whereIn('status', ['queued', 'sending', 'failed'])
    .update({ status: 'sending', attempts: deps.knex.raw('attempts + 1'), updated_at: deps.knex.fn.now() })
    .returning<EmailRow[]>(['id', 'store_id', 'to', 'locale', 'template', 'payload', 'status']);
  if (!row) return 'already_done';
  const store = await deps
    .knex('stores')
    .where({ id: row.store_id })
    .first<{ name: string; support_email: string | null } | undefined>('name', 'support_email');
  const brand: Brand = { name: store?.name ?? 'Matjar' };
  const payload = JSON.parse(deps.cipher.decrypt(row.payload)) as {
    data: unknown;
    attachments: EmailAttachmentRef[];
  };
  const template = TEMPLATES[row.template] as unknown as {
    render(locale: 'ar' | 'en', brand: Brand, data: unknown): { subject: string; html: string; text: string };
  };
  const rendered = template.render(row.locale, brand, payload.data);
  const attachments: EmailAttachment[] = [];
  for (const ref of payload.attachments) {
    const made = await attachmentFor(deps, ref);
    if (made) attachments.push(made);
  }
  try {
    const { messageId } = await deps.mailer.send({
      from: { name: brand.name, address: deps.config.email.from },
      to: row.to,
      replyTo: store?.support_email ?? undefined,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      locale: row.locale,
      attachments,
    });
    await deps
      .knex('emails')
      .where({ id: emailId })
      .update({
        status: 'sent',
        // The driver that sent it (the worker's), which GET /__dev/outbox filters on.
        driver: deps.mailer.driver,
        message_id: messageId.slice(0, 300),
        subject: rendered.subject.slice(0, 300),
        // The text part is kept only for the outbox driver (GET /__dev/outbox): it carries keys.
        body: deps.mailer.driver === 'outbox' ? rendered.text : null,
        attachments: attachments.map((a) => a.filename),
        error_code: null,
        error_message: null,
        sent_at: deps.knex.fn.now(),
        updated_at: deps.knex.fn.now(),
      });
    return 'sent';
  } catch (err) {
    const bounced = err instanceof EmailBouncedError;
    const code = (err as { responseCode?: unknown }).responseCode;
    await deps
      .knex('emails')
      .where({ id: emailId })
      .update({
        status: bounced ? 'bounced' : opts.finalAttempt ? 'failed' : 'queued',
        error_code: typeof code === 'number' ? String(code) : null,
        error_message: (err instanceof Error ? err.message : String(err)).slice(0, 500),
        updated_at: deps.knex.fn.now(),
      });
    throw err;
  }
}
