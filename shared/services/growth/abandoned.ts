import type { Knex } from 'knex';
import { Checkout, Store } from '../../../db/models';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { parsePhone } from '../../phone';
import { stageJob } from '../../queues/outbox';
import type { TxDeps } from '../../unit-of-work';
import { sendEmail, type SendEmailDeps } from '../emails';
import { recipientOf } from '../fulfilment/delivery';
import { ReminderRefs } from './reminder-refs';

/**
 * Abandoned checkouts (docs/growth.md, "Abandoned checkouts"). A store's unpaid checkout, with a phone or
 * an e-mail, `abandoned_checkout_minutes` (default 60; 0: off) after it was opened gets one reminder, by
 * message and e-mail in the buyer's language, with an address that resumes it and one that opts the buyer
 * out of reminders from the store.
 *
 * Exactly once: the `abandoned-checkouts` task inserts the reminder row (unique per checkout) and stages
 * its message job (job id from the row) in one transaction; a second task running at the same moment
 * inserts nothing for that checkout and stages nothing. The job's sends are keyed by the reminder
 * (message_sends, emails), so a retried job sends each once too.
 *
 * Never reminded: a checkout paid (or whose buyer paid another order in the store since), a merchant's
 * checkout, one a reminder rebuilt, a buyer whose phone is blocked (in the store or on the platform) or
 * who opted out (by phone or e-mail), checkouts older than a week.
 */

export const REMINDER_BATCH = 200;
const MAX_AGE_DAYS = 7;

interface Candidate {
  id: number;
  store_id: number;
  customer_country_code: string;
  customer_phone: string;
  customer_email: string;
  coupon: string | null;
}

/** Opted-out contacts are kept as e164 digits and lower-case e-mail addresses. */
export function contactsOf(c: {
  customer_country_code: string;
  customer_phone: string;
  customer_email: string;
}): string[] {
  const out: string[] = [];
  const phone = parsePhone(c.customer_country_code, c.customer_phone);
  if (phone) out.push(phone.e164);
  else if (c.customer_phone) out.push(recipientOf(c));
  if (c.customer_email) out.push(c.customer_email.trim().toLowerCase());
  return out;
}

async function eligible(knex: Knex, now: Date): Promise<Candidate[]> {
  const rows = await knex.raw(
    `select c.id, c.store_id, c.customer_country_code, c.customer_phone, c.customer_email,
            s.abandoned_checkout_coupon as coupon
       from checkouts c
       join stores s on s.id = c.store_id
      where c.status in ('created', 'payment_initiated')
        and s.abandoned_checkout_minutes > 0
        and c.created_at <= :now::timestamptz - make_interval(mins => s.abandoned_checkout_minutes)
        and c.created_at > :now::timestamptz - make_interval(days => :maxAge)
        and c.source <> 'merchant'
        and c.reminder_id is null
        and (c.customer_phone <> '' or c.customer_email <> '')
        and not exists (select 1 from checkout_reminders r where r.checkout_id = c.id)
        and not exists (select 1 from orders o where o.checkout_id = c.id)
        and not exists (
          select 1 from orders o
           where o.store_id = c.store_id and o.created_at >= c.created_at and o.status in (2, 3, 4)
             and ((o.customer_country_code = c.customer_country_code and o.customer_phone = c.customer_phone)
                  or lower(o.customer_email) = lower(c.customer_email)))
      order by c.created_at
      limit :batch`,
    { now: now.toISOString(), maxAge: MAX_AGE_DAYS, batch: REMINDER_BATCH },
  );
  return (rows as { rows: Candidate[] }).rows;
}

/** True when the buyer's phone is blocked (store or platform) or they opted out of the store's reminders. */
async function mayNotRemind(knex: Knex, c: Candidate): Promise<boolean> {
  const contacts = contactsOf(c);
  const phone = parsePhone(c.customer_country_code, c.customer_phone);
  if (phone) {
    const blocked = await knex('blocked_phones')
      .where('e164', phone.e164)
      .where((q) => q.where('store_id', c.store_id).orWhereNull('store_id'))
      .first('id');
    if (blocked) return true;
  }
  if (contacts.length === 0) return true;
  const out = await knex('reminder_opt_outs')
    .where('store_id', c.store_id)
    .whereIn('contact', contacts)
    .first('contact');
  return out !== undefined;
}

/**
 * The `abandoned-checkouts` maintenance task: records one reminder per eligible checkout and stages its
 * message job, each in its own short transaction. Answers how many it recorded.
 */
export async function remindAbandonedCheckouts(
  deps: { knex: Knex } & TxDeps,
  now: Date = new Date(),
): Promise<{ processed: number; reminded: number }> {
  const candidates = await eligible(deps.knex, now);
  let reminded = 0;
  for (const c of candidates) {
    if (await mayNotRemind(deps.knex, c)) continue;
    const id = await deps.tx(async (uow) => {
      const inserted = await uow.trx.raw(
        `insert into checkout_reminders (store_id, checkout_id, coupon_code, created_at)
         select ?, ?, ?, ?
          where exists (select 1 from checkouts where id = ? and status in ('created', 'payment_initiated'))
         on conflict (checkout_id) do nothing
         returning id`,
        [c.store_id, c.id, c.coupon, now, c.id],
      );
      const row = (inserted as { rows: { id: number }[] }).rows[0];
      if (!row) return null;
      const reminderId = Number(row.id);
      uow.stage(
        await stageJob(
          uow.trx,
          'messages',
          { kind: 'checkout_reminder', reminderId },
          { jobId: `checkout-reminder-${reminderId}` },
        ),
      );
      return reminderId;
    });
    if (id !== null) reminded += 1;
  }
  return { processed: candidates.length, reminded };
}

// ------------------------------------------------------------------ the message

export type ReminderOutcome = 'sent' | 'already-sent' | 'paid' | 'opted-out';

const MESSAGES = {
  en: (store: string, sum: string, resume: string, optOut: string, coupon: string | null) =>
    `${store}: you did not finish paying ${sum}. Complete your order here: ${resume}` +
    (coupon ? `\nUse the code ${coupon} for a discount.` : '') +
    `\nNo more reminders: ${optOut}`,
  ar: (store: string, sum: string, resume: string, optOut: string, coupon: string | null) =>
    `${store}: لم تُكمل دفع ${sum}. أكمل طلبك من هنا: ${resume}` +
    (coupon ? `\nاستخدم الرمز ${coupon} للحصول على خصم.` : '') +
    `\nلإيقاف التذكير: ${optOut}`,
};

export interface ReminderDeps extends SendEmailDeps {
  knex: Knex;
  messenger: Messenger;
  appSecret: string;
  appSecretPrevious?: readonly string[];
  config: SendEmailDeps['config'] & { publicBaseUrl: string };
}

/** The `messages` job of one reminder: the message (WhatsApp first, SMS after) and the e-mail. */
export async function sendCheckoutReminder(deps: ReminderDeps, reminderId: number): Promise<ReminderOutcome> {
  const reminder = await deps.knex('checkout_reminders').where('id', reminderId).first();
  if (!reminder) throw new NotFoundError(`checkout reminder ${reminderId} does not exist`);
  const checkout = await Checkout.query(deps.knex).findById(reminder.checkout_id);
  if (!checkout) throw new NotFoundError(`checkout of reminder ${reminderId} does not exist`);
  if (checkout.status === 'paid') return 'paid';
  const optedOut = await deps
    .knex('reminder_opt_outs')
    .where('store_id', checkout.store_id)
    .whereIn('contact', contactsOf(checkout))
    .first('contact');
  if (optedOut) return 'opted-out';
  const store = await Store.query(deps.knex).findById(checkout.store_id);
  const locale = checkout.locale === 'ar' ? 'ar' : 'en';
  const refs = new ReminderRefs(deps.appSecret, deps.appSecretPrevious ?? []);
  const resume = refs.resumeUrl(deps.config.publicBaseUrl, reminderId);
  const optOut = refs.optOutUrl(deps.config.publicBaseUrl, reminderId);
  const total = formatMoney(Number(checkout.total_minor), checkout.currency);
  const sum = locale === 'ar' ? `${total} ${checkout.currency}` : `${checkout.currency} ${total}`;
  const coupon = (reminder.coupon_code as string | null) ?? null;
  let duplicate = true;
  if (checkout.customer_phone) {
    const result = await deps.messenger.send({
      to: recipientOf(checkout),
      body: MESSAGES[locale](store?.name ?? '', sum, resume, optOut, coupon),
      route: 'whatsapp_first',
      purpose: 'checkout_reminder',
      storeId: checkout.store_id,
      key: `checkout-reminder:${reminderId}`,
    });
    duplicate = result.duplicate === true;
  }
  if (checkout.customer_email) {
    const items = await deps
      .knex('checkout_items as i')
      .join('products as p', 'p.id', 'i.product_id')
      .where('i.checkout_id', checkout.id)
      .orderBy('i.position')
      .select<{ name: string; quantity: number }[]>('p.name', 'i.quantity');
    await sendEmail(deps, deps.knex, {
      purpose: 'checkout_reminder',
      key: `checkout-reminder:${reminderId}`,
      to: checkout.customer_email,
      locale,
      template: 'checkout_reminder',
      storeId: checkout.store_id,
      data: {
        items: items.length > 0 ? items.map((i) => `${i.name} × ${i.quantity}`) : ['—'],
        total,
        currency: checkout.currency,
        resume_url: resume,
        opt_out_url: optOut,
        coupon_code: coupon,
      },
    });
  }
  return duplicate ? 'already-sent' : 'sent';
}

// ------------------------------------------------------------------ opting out

/** The buyer of this reminder (by phone and e-mail) gets no more reminders from its store. */
export async function optOutOfReminders(
  deps: { knex: Knex; appSecret: string; appSecretPrevious?: readonly string[] },
  ref: string,
): Promise<{ storeName: string } | null> {
  const id = new ReminderRefs(deps.appSecret, deps.appSecretPrevious ?? []).parse(ref);
  if (id === null) return null;
  const row = await deps
    .knex('checkout_reminders as r')
    .join('checkouts as c', 'c.id', 'r.checkout_id')
    .join('stores as s', 's.id', 'c.store_id')
    .where('r.id', id)
    .first('c.store_id', 'c.customer_country_code', 'c.customer_phone', 'c.customer_email', 's.name');
  if (!row) return null;
  const contacts = contactsOf(row);
  if (contacts.length > 0) {
    await deps
      .knex('reminder_opt_outs')
      .insert(contacts.map((contact) => ({ store_id: row.store_id, contact })))
      .onConflict(['store_id', 'contact'])
      .ignore();
  }
  return { storeName: row.name as string };
}

/** Whether this reminder's buyer opted out already (the opt-out page says so). */
export async function reminderStoreName(
  deps: { knex: Knex; appSecret: string; appSecretPrevious?: readonly string[] },
  ref: string,
): Promise<string | null> {
  const id = new ReminderRefs(deps.appSecret, deps.appSecretPrevious ?? []).parse(ref);
  if (id === null) return null;
  const row = await deps
    .knex('checkout_reminders as r')
    .join('stores as s', 's.id', 'r.store_id')
    .where('r.id', id)
    .first<{ name: string } | undefined>('s.name');
  return row?.name ?? null;
}

// ------------------------------------------------------------------ figures

export interface ReminderFigures {
  reminders_sent: number;
  checkouts_recovered: number;
  revenue_recovered: string;
  currency: string;
}

/** The store's reminders since `since` (all time when left out): sent, recovered, and what they paid. */
export async function reminderFigures(knex: Knex, storeId: number, since?: Date): Promise<ReminderFigures> {
  const q = knex('checkout_reminders').where('store_id', storeId);
  if (since) q.where('created_at', '>=', since);
  const row = await q.first<{ sent: number; recovered: number; revenue: string | null }>(
    knex.raw('count(*)::int as sent'),
    knex.raw('count(recovered_order_id)::int as recovered'),
    knex.raw('coalesce(sum(recovered_minor), 0)::bigint as revenue'),
  );
  const store = await knex('stores').where('id', storeId).first<{ currency: string } | undefined>('currency');
  const currency = store?.currency ?? 'SAR';
  return {
    reminders_sent: Number(row?.sent ?? 0),
    checkouts_recovered: Number(row?.recovered ?? 0),
    revenue_recovered: formatMoney(Number(row?.revenue ?? 0), currency),
    currency,
  };
}
