import Joi from 'joi';
import type { Knex } from 'knex';
import { afterCommit, inTransaction } from '../../after-commit';
import type { Cipher } from '../../crypto';
import type { BuyerLocale } from '../../i18n/buyer-messages';
import { dispatchStaged, stageJob, type OutboxDeps, type StagedJob } from '../../queues/outbox';
import type { UnitOfWork } from '../../unit-of-work';
import { TEMPLATES, type TemplateData, type TemplateName } from './templates';

/** Attachments are named, not carried: the job makes their bytes when it sends (the invoice PDF). */
export type EmailAttachmentRef = { kind: 'invoice_pdf'; orderId: number };

/**
 * One buyer e-mail for one event. (`purpose`, `key`, `to`) names it: asked for twice (a retried job, two
 * subscribers racing), it is queued and sent once (docs/email.md, "Once per event").
 */
export interface EmailRequest<N extends TemplateName = TemplateName> {
  /** What the e-mail is for: `order_delivery`, `refund`, `subscription_renewed`… */
  purpose: string;
  /** Unique to the event within the purpose: `order:42`, `refund:7`, `subscription:3:period:2026-12-01`. */
  key: string;
  to: string;
  locale: BuyerLocale;
  template: N;
  data: TemplateData[N];
  /**
   * The store whose name, colours and support address the e-mail carries; null for the platform's own
   * e-mail (the buyer account's sign-in link on the platform's address).
   */
  storeId: number | null;
  /** The order it is about, so the order shows a bounce. */
  orderId?: number | null;
  attachments?: EmailAttachmentRef[];
}

export interface SendEmailDeps extends OutboxDeps {
  cipher: Cipher;
  config: { email: { driver: 'smtp' | 'outbox'; retryDelayMs: number } };
}

/** An e-mail asked for with a bad address, template or data: a programming error of the caller. */
export class EmailRequestError extends Error {
  readonly code = 'EMAIL_REQUEST_INVALID';

  constructor(message: string) {
    super(message);
    this.name = 'EmailRequestError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** Attempts of one e-mail's job: with the default 60 s first back-off, doubling, about eight and a half hours. */
export const EMAIL_ATTEMPTS = 10;

const requestSchema = Joi.object({
  purpose: Joi.string()
    .pattern(/^[a-z][a-z0-9_]{0,39}$/)
    .required(),
  key: Joi.string().min(1).max(500).required(),
  to: Joi.string().trim().lowercase().email({ tlds: false }).max(254).required(),
  locale: Joi.string().valid('ar', 'en').required(),
  template: Joi.string()
    .valid(...Object.keys(TEMPLATES))
    .required(),
  data: Joi.object().required(),
  storeId: Joi.number().integer().min(1).allow(null).required(),
  orderId: Joi.number().integer().min(1).allow(null),
  attachments: Joi.array()
    .items(
      Joi.object({
        kind: Joi.string().valid('invoice_pdf').required(),
        orderId: Joi.number().integer().min(1).required(),
      }),
    )
    .max(5),
});

function validated<N extends TemplateName>(request: EmailRequest<N>): EmailRequest<N> {
  const { error, value } = requestSchema.validate(request, { abortEarly: true });
  if (error) throw new EmailRequestError(`sendEmail: ${error.message}`);
  const template = TEMPLATES[request.template] as unknown as { schema: Joi.ObjectSchema };
  const data = template.schema.validate(request.data, { abortEarly: true });
  if (data.error) throw new EmailRequestError(`sendEmail (${request.template}): ${data.error.message}`);
  return { ...(value as EmailRequest<N>), data: data.value as TemplateData[N] };
}

function isUnit(db: UnitOfWork | Knex): db is UnitOfWork {
  return typeof (db as UnitOfWork).stage === 'function' && 'trx' in db;
}

/**
 * Asks for one e-mail: writes its row (the template's data sealed: it carries keys) and stages its job in
 * the caller's transaction, so a change that rolls back sends nothing and one that commits sends once.
 * Given a unit of work, the job leaves with the unit's other effects; given a knex, in a transaction of its
 * own (after the caller's commit when the knex is a transaction). A second request for the same
 * (purpose, key, to) finds the row and answers `duplicate`.
 */
export async function sendEmail<N extends TemplateName>(
  deps: SendEmailDeps,
  db: UnitOfWork | Knex,
  request: EmailRequest<N>,
): Promise<{ emailId: number | null; duplicate: boolean }> {
  const email = validated(request);
  const write = async (trx: Knex.Transaction): Promise<{ emailId: number | null; job: StagedJob | null }> => {
    const payload = deps.cipher.encrypt(
      JSON.stringify({ data: email.data, attachments: email.attachments ?? [] }),
    );
    const rows = await trx('emails')
      .insert({
        store_id: email.storeId,
        order_id: email.orderId ?? null,
        purpose: email.purpose,
        key: email.key,
        to: email.to,
        locale: email.locale,
        template: email.template,
        payload,
        driver: deps.config.email.driver,
      })
      .onConflict(['purpose', 'key', 'to'])
      .ignore()
      .returning<{ id: string }[]>('id');
    if (rows.length === 0) return { emailId: null, job: null };
    const emailId = Number(rows[0]!.id);
    const job = await stageJob(
      trx,
      'emails',
      { emailId },
      {
        jobId: `email-${emailId}`,
        attempts: EMAIL_ATTEMPTS,
        backoff: { type: 'exponential', delay: deps.config.email.retryDelayMs },
      },
    );
    return { emailId, job };
  };
  if (isUnit(db)) {
    const { emailId, job } = await write(db.trx);
    if (job) db.stage(job);
    return { emailId, duplicate: emailId === null };
  }
  const { emailId, job } = await db.transaction(write);
  if (job) {
    // Inside a caller's transaction the job leaves at its commit; awaiting that here would wait forever.
    const done = afterCommit(db, () => dispatchStaged(deps, [job]));
    if (!inTransaction(db)) await done;
  }
  return { emailId, duplicate: emailId === null };
}
