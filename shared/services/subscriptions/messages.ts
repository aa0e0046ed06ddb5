import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { PlanDuration } from '../../../db/models';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { messageKey, type SubscriptionMessageEvent } from './message-job';
import type { BuyerLocale } from '../../i18n/buyer-messages';
import { recipientOf } from '../fulfilment/delivery';
import { periodEnd } from '../licenses/periods';
import { SubscriptionLinks } from './links';

export { messageJob, type SubscriptionMessageEvent } from './message-job';

interface MessageFacts {
  store: string;
  product: string;
  plan: string;
  amount: string;
  periodEnd: string | null;
  nextTry: string | null;
  payUrl: string | null;
  manageUrl: string;
}

const day = (d: Date | null): string | null => (d ? new Date(d).toISOString().slice(0, 10) : null);

/** The message in Arabic, then English: a buyer of a Saudi store reads either. */
export function subscriptionMessage(event: SubscriptionMessageEvent, f: MessageFacts): string {
  const name = `${f.product} (${f.plan})`;
  const lines: [string, string][] = [];
  switch (event) {
    case 'renewed':
      lines.push([
        `${f.store}: تم تجديد اشتراكك في ${name} بمبلغ ${f.amount}، وهو ساري حتى ${f.periodEnd ?? ''}.`,
        `${f.store}: your ${name} subscription renewed for ${f.amount}; it runs until ${f.periodEnd ?? ''}.`,
      ]);
      break;
    case 'payment_failed':
      lines.push([
        `${f.store}: تعذّر تجديد اشتراكك في ${name} (${f.amount}).${f.nextTry ? ` سنحاول مجدداً في ${f.nextTry}.` : ''} يمكنك الدفع الآن: ${f.payUrl ?? ''}`,
        `${f.store}: we could not renew your ${name} subscription (${f.amount}).${f.nextTry ? ` We will try again on ${f.nextTry}.` : ''} Pay now: ${f.payUrl ?? ''}`,
      ]);
      break;
    case 'renewal_link':
      lines.push([
        `${f.store}: اشتراكك في ${name} ينتهي في ${f.periodEnd ?? ''}. للتجديد (${f.amount}): ${f.payUrl ?? ''}`,
        `${f.store}: your ${name} subscription ends on ${f.periodEnd ?? ''}. Renew it (${f.amount}): ${f.payUrl ?? ''}`,
      ]);
      break;
    case 'expired':
      lines.push([
        `${f.store}: انتهى اشتراكك في ${name} لعدم اكتمال الدفع.`,
        `${f.store}: your ${name} subscription has expired: the renewal was not paid.`,
      ]);
      break;
    case 'cancelled':
      lines.push([
        `${f.store}: تم إلغاء اشتراكك في ${name}؛ لن يُجدَّد.`,
        `${f.store}: your ${name} subscription is cancelled; it will not renew.`,
      ]);
      break;
  }
  lines.push([`إدارة الاشتراك أو إلغاؤه: ${f.manageUrl}`, `Manage or cancel: ${f.manageUrl}`]);
  return [...lines.map(([ar]) => ar), '', ...lines.map(([, en]) => en)].join('\n');
}

/**
 * The renewal the new price first applies to: the first period end at or after `appliesFrom` (the
 * notice's date for the buyer).
 */
export function firstRenewalFrom(
  currentPeriodEnd: Date | null,
  duration: PlanDuration | string | null,
  appliesFrom: Date,
): Date {
  let end = currentPeriodEnd ? new Date(currentPeriodEnd) : null;
  for (let i = 0; end !== null && end.getTime() < appliesFrom.getTime() && i < 120; i += 1) {
    end = periodEnd(end, duration as PlanDuration);
  }
  return end ?? appliesFrom;
}

/** What a price notice says: the new price, the renewal it first applies to, and where to cancel. */
export interface PriceRiseFacts {
  store: string;
  product: string;
  plan: string;
  from: string;
  to: string;
  appliesOn: string;
  manageUrl: string;
}

/**
 * The notice of a price rise, in the buyer's language (the language of their checkout, Arabic or
 * English): the agreed and the new price, the renewal from which the new one is charged, and the
 * subscription's page where they cancel before then.
 */
export function priceRiseMessage(locale: BuyerLocale, f: PriceRiseFacts): string {
  const name = `${f.product} (${f.plan})`;
  return locale === 'ar'
    ? [
        `${f.store}: سيتغير سعر اشتراكك في ${name} من ${f.from} إلى ${f.to} ابتداءً من التجديد في ${f.appliesOn}.`,
        `حتى ذلك الحين يبقى سعرك ${f.from}. إن لم توافق، ألغِ التجديد قبل ${f.appliesOn}: ${f.manageUrl}`,
      ].join('\n')
    : [
        `${f.store}: the price of your ${name} subscription changes from ${f.from} to ${f.to} from the renewal on ${f.appliesOn}.`,
        `Until then you pay ${f.from}. If you do not agree, cancel the renewal before ${f.appliesOn}: ${f.manageUrl}`,
      ].join('\n');
}

type Recipient = { store_id: number; customer_country_code: string; customer_phone: string };

/** The buyer's language at their first checkout (checkouts.locale); English when none was recorded. */
async function buyerLocale(knex: Knex, orderId: number | null): Promise<BuyerLocale> {
  if (orderId === null) return 'en';
  const row = await knex('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .where('o.id', orderId)
    .first<{ locale: string | null } | undefined>('c.locale');
  return row?.locale === 'ar' ? 'ar' : 'en';
}

/**
 * A price rise's notice (job `attempt` is the notice row): sent to the buyer's phone and recorded on the
 * notice (`sent_at`, `channels`). The platform has no e-mail sender for subscription news yet, so the
 * message is the notice's one channel.
 */
async function sendPriceNotice(
  deps: { knex: Knex; messenger: Messenger; appSecret: string; config: { publicBaseUrl: string } },
  job: { subscriptionId: number; attempt: number },
  sub: Recipient & {
    store: string;
    product: string;
    order_id: number | null;
    current_period_end: Date | null;
  },
): Promise<'sent' | 'already-sent'> {
  const notice = await deps
    .knex('subscription_price_notices as n')
    .join('product_plans as pl', 'pl.id', 'n.plan_id')
    .where({ 'n.id': job.attempt, 'n.subscription_id': job.subscriptionId })
    .first<
      | {
          plan: string;
          duration: string;
          from_price_minor: string | number;
          to_price_minor: string | number;
          currency: string;
          applies_from: Date;
        }
      | undefined
    >(
      'pl.name as plan',
      'pl.duration',
      'n.from_price_minor',
      'n.to_price_minor',
      'n.currency',
      'n.applies_from',
    );
  if (!notice) throw new NotFoundError(`price notice ${job.attempt} does not exist`);
  const money = (minor: string | number): string =>
    `${formatMoney(Number(minor), notice.currency)} ${notice.currency}`;
  const body = priceRiseMessage(await buyerLocale(deps.knex, sub.order_id), {
    store: sub.store,
    product: sub.product,
    plan: notice.plan,
    from: money(notice.from_price_minor),
    to: money(notice.to_price_minor),
    appliesOn:
      day(firstRenewalFrom(sub.current_period_end, notice.duration, new Date(notice.applies_from))) ?? '',
    manageUrl: new SubscriptionLinks(deps.appSecret).manageUrl(deps.config.publicBaseUrl, job.subscriptionId),
  });
  const result = await deps.messenger.send({
    to: recipientOf(sub),
    body,
    route: 'whatsapp_first',
    purpose: 'subscription_price_rise',
    storeId: sub.store_id,
    key: messageKey(job.subscriptionId, 'price_rise', null, job.attempt),
  });
  await deps
    .knex('subscription_price_notices')
    .where('id', job.attempt)
    .whereNull('sent_at')
    .update({ sent_at: new Date(), channels: ['message'] });
  return result.duplicate ? 'already-sent' : 'sent';
}

/**
 * The `messages` subscription job: reads the subscription and renewal as they are now and sends the
 * buyer the message of `event` (WhatsApp first, SMS fallback). Every message carries the subscription's
 * own page (a capability link where the buyer cancels); a failure or renewal link carries the renewal's
 * payment page too. Amounts are what the buyer pays: the renewal's own price, else the agreed one.
 */
export async function sendSubscriptionMessage(
  deps: { knex: Knex; messenger: Messenger; appSecret: string; config: { publicBaseUrl: string } },
  job: { subscriptionId: number; event: SubscriptionMessageEvent; renewalId: number | null; attempt: number },
): Promise<'sent' | 'already-sent'> {
  const sub = await deps
    .knex('subscriptions as s')
    .join('orders as o', 'o.id', 's.order_id')
    .join('stores as st', 'st.id', 's.store_id')
    .join('products as p', 'p.id', 's.product_id')
    .join('product_plans as pl', 'pl.id', 's.plan_id')
    .where('s.id', job.subscriptionId)
    .first<
      | {
          store_id: number;
          store: string;
          product: string;
          plan: string;
          price_minor: number | string;
          currency: string;
          order_id: number | null;
          current_period_end: Date | null;
          customer_country_code: string;
          customer_phone: string;
        }
      | undefined
    >(
      's.store_id',
      'st.name as store',
      'p.name as product',
      'pl.name as plan',
      deps.knex.raw('coalesce(s.price_minor, pl.price_minor) as price_minor'),
      'o.currency',
      's.order_id',
      's.current_period_end',
      'o.customer_country_code',
      'o.customer_phone',
    );
  if (!sub) throw new NotFoundError(`subscription ${job.subscriptionId} does not exist`);
  if (job.event === 'price_rise') return sendPriceNotice(deps, job, sub);
  const renewal =
    job.renewalId !== null
      ? await deps
          .knex('subscription_renewals as r')
          .join('product_plans as pl', 'pl.id', 'r.plan_id')
          .where('r.id', job.renewalId)
          .first<{ price_minor: number | string; next_attempt_at: Date | null } | undefined>(
            deps.knex.raw('coalesce(r.price_minor, pl.price_minor) as price_minor'),
            'r.next_attempt_at',
          )
      : undefined;
  const links = new SubscriptionLinks(deps.appSecret);
  const base = deps.config.publicBaseUrl;
  const body = subscriptionMessage(job.event, {
    store: sub.store,
    product: sub.product,
    plan: sub.plan,
    amount: `${formatMoney(Number(renewal?.price_minor ?? sub.price_minor), sub.currency)} ${sub.currency}`,
    periodEnd: day(sub.current_period_end),
    nextTry: day(renewal?.next_attempt_at ?? null),
    payUrl: job.renewalId !== null ? links.renewalPaymentUrl(base, job.renewalId) : null,
    manageUrl: links.manageUrl(base, job.subscriptionId),
  });
  const result = await deps.messenger.send({
    to: recipientOf(sub),
    body,
    route: 'whatsapp_first',
    purpose: `subscription_${job.event}`,
    storeId: sub.store_id,
    key: messageKey(job.subscriptionId, job.event, job.renewalId, job.attempt),
  });
  return result.duplicate ? 'already-sent' : 'sent';
}
