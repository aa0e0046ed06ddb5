import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { PlanDuration } from '../../../db/models';
import type { Messenger } from '../../messaging';
import { sendEmail, type SendEmailDeps } from '../emails';
import { orderBuyerLocale } from '../../i18n/buyer-locale';
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

/** What the subscription jobs need: the messenger, the e-mail channel and the links' secret and base. */
type SubscriptionMessageDeps = SendEmailDeps & {
  knex: Knex;
  messenger: Messenger;
  appSecret: string;
  config: SendEmailDeps['config'] & { publicBaseUrl: string };
};

/**
 * A price rise's notice (job `attempt` is the notice row): sent to the buyer's phone, and by e-mail when
 * the order has an address, and recorded on the notice (`sent_at`, `channels`).
 */
async function sendPriceNotice(
  deps: SubscriptionMessageDeps,
  job: { subscriptionId: number; attempt: number },
  sub: Recipient & {
    store_id: number;
    store: string;
    product: string;
    order_id: number | null;
    current_period_end: Date | null;
    customer_email: string | null;
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
  const locale = await orderBuyerLocale(deps.knex, sub.order_id);
  const appliesOn = firstRenewalFrom(sub.current_period_end, notice.duration, new Date(notice.applies_from));
  const body = priceRiseMessage(locale, {
    store: sub.store,
    product: sub.product,
    plan: notice.plan,
    from: money(notice.from_price_minor),
    to: money(notice.to_price_minor),
    appliesOn: day(appliesOn) ?? '',
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
  const emailed = sub.customer_email !== null && sub.customer_email !== '';
  if (emailed) {
    await sendEmail(deps, deps.knex, {
      purpose: 'price_change',
      key: messageKey(job.subscriptionId, 'price_rise', null, job.attempt),
      to: sub.customer_email!,
      locale,
      template: 'price_change',
      storeId: sub.store_id,
      orderId: sub.order_id,
      data: {
        product_name: sub.product,
        old_amount: formatMoney(Number(notice.from_price_minor), notice.currency),
        new_amount: formatMoney(Number(notice.to_price_minor), notice.currency),
        currency: notice.currency,
        effective_at: (appliesOn ?? new Date(notice.applies_from)).toISOString(),
      },
    });
  }
  await deps
    .knex('subscription_price_notices')
    .where('id', job.attempt)
    .whereNull('sent_at')
    .update({ sent_at: new Date(), channels: emailed ? ['message', 'email'] : ['message'] });
  return result.duplicate ? 'already-sent' : 'sent';
}

/**
 * The `messages` subscription job: reads the subscription and renewal as they are now and sends the
 * buyer the message of `event` (WhatsApp first, SMS fallback). Every message carries the subscription's
 * own page (a capability link where the buyer cancels); a failure or renewal link carries the renewal's
 * payment page too. Amounts are what the buyer pays: the renewal's own price, else the agreed one.
 */
export async function sendSubscriptionMessage(
  deps: SubscriptionMessageDeps,
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
          customer_email: string | null;
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
      'o.customer_email',
    );
  if (!sub) throw new NotFoundError(`subscription ${job.subscriptionId} does not exist`);
  if (job.event === 'price_rise') return sendPriceNotice(deps, job, sub);
  const renewal =
    job.renewalId !== null
      ? await deps
          .knex('subscription_renewals as r')
          .join('product_plans as pl', 'pl.id', 'r.plan_id')
          .leftJoin('orders as ro', 'ro.id', 'r.order_id')
          .where('r.id', job.renewalId)
          .first<
            | {
                price_minor: number | string;
                next_attempt_at: Date | null;
                order_id: number | null;
                order_number: number | null;
              }
            | undefined
          >(
            deps.knex.raw('coalesce(r.price_minor, pl.price_minor) as price_minor'),
            'r.next_attempt_at',
            'r.order_id',
            'ro.number as order_number',
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
  if (sub.customer_email) {
    await emailSubscriptionNews(deps, job, sub, {
      amount: formatMoney(Number(renewal?.price_minor ?? sub.price_minor), sub.currency),
      payUrl: job.renewalId !== null ? links.renewalPaymentUrl(base, job.renewalId) : null,
      renewalOrderId: renewal?.order_id ?? null,
      renewalOrderNumber: renewal?.order_number ?? null,
    });
  }
  return result.duplicate ? 'already-sent' : 'sent';
}

/**
 * The e-mail beside a renewal's message (docs/email.md): a renewal paid, and a renewal that needs paying
 * (a failed charge, or the link sent when there is no saved card). The other news goes by message only.
 */
async function emailSubscriptionNews(
  deps: SubscriptionMessageDeps,
  job: { subscriptionId: number; event: SubscriptionMessageEvent; renewalId: number | null; attempt: number },
  sub: {
    store_id: number;
    product: string;
    currency: string;
    order_id: number | null;
    current_period_end: Date | null;
    customer_email: string | null;
  },
  news: {
    amount: string;
    payUrl: string | null;
    renewalOrderId: number | null;
    renewalOrderNumber: number | null;
  },
): Promise<void> {
  const base = {
    key: messageKey(job.subscriptionId, job.event, job.renewalId, job.attempt),
    to: sub.customer_email!,
    locale: await orderBuyerLocale(deps.knex, sub.order_id),
    storeId: sub.store_id,
  };
  if (job.event === 'renewed' && news.renewalOrderId !== null && sub.current_period_end) {
    await sendEmail(deps, deps.knex, {
      ...base,
      purpose: 'subscription_renewed',
      template: 'subscription_renewed',
      orderId: news.renewalOrderId,
      data: {
        product_name: sub.product,
        order_id: news.renewalOrderId,
        order_number: news.renewalOrderNumber,
        amount: news.amount,
        currency: sub.currency,
        next_renewal_at: sub.current_period_end.toISOString(),
      },
    });
  } else if ((job.event === 'payment_failed' || job.event === 'renewal_link') && news.payUrl) {
    await sendEmail(deps, deps.knex, {
      ...base,
      purpose: 'renewal_failed',
      template: 'renewal_failed',
      orderId: sub.order_id,
      data: {
        product_name: sub.product,
        amount: news.amount,
        currency: sub.currency,
        pay_url: news.payUrl,
        ends_at: sub.current_period_end?.toISOString() ?? null,
      },
    });
  }
}
