import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { Messenger } from '../../messaging';
import { formatMoney } from '../../money';
import { enqueue, Queues } from '../../queues';
import { recipientOf } from '../fulfilment/delivery';
import { SubscriptionLinks } from './links';

/** What the buyer is told about their subscription, one message per event, period and attempt. */
export type SubscriptionMessageEvent =
  'renewed' | 'payment_failed' | 'renewal_link' | 'expired' | 'cancelled';

/**
 * Enqueues the buyer's message after the change committed. The job id (and the send key) names the
 * subscription, event, renewal and attempt, so a retried renewal job or a second renewal run tells the
 * buyer once.
 */
export async function enqueueSubscriptionMessage(
  queues: Queues,
  subscriptionId: number,
  event: SubscriptionMessageEvent,
  renewalId: number | null,
  attempt: number,
): Promise<void> {
  await enqueue(
    queues,
    'messages',
    { kind: 'subscription', subscriptionId, event, renewalId, attempt },
    { jobId: messageKey(subscriptionId, event, renewalId, attempt) },
  );
}

function messageKey(
  subscriptionId: number,
  event: SubscriptionMessageEvent,
  renewalId: number | null,
  attempt: number,
): string {
  return `subscription-${subscriptionId}-${event}-${renewalId ?? 0}-${attempt}`;
}

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
 * The `messages` subscription job: reads the subscription and renewal as they are now and sends the
 * buyer the message of `event` (WhatsApp first, SMS fallback). Every message carries the subscription's
 * own page (a capability link where the buyer cancels); a failure or renewal link carries the renewal's
 * payment page too.
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
          price_minor: number;
          currency: string;
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
      'pl.price_minor',
      'o.currency',
      's.current_period_end',
      'o.customer_country_code',
      'o.customer_phone',
    );
  if (!sub) throw new NotFoundError(`subscription ${job.subscriptionId} does not exist`);
  const renewal =
    job.renewalId !== null
      ? await deps
          .knex('subscription_renewals as r')
          .join('product_plans as pl', 'pl.id', 'r.plan_id')
          .where('r.id', job.renewalId)
          .first<{ price_minor: number; next_attempt_at: Date | null } | undefined>(
            'pl.price_minor',
            'r.next_attempt_at',
          )
      : undefined;
  const links = new SubscriptionLinks(deps.appSecret);
  const base = deps.config.publicBaseUrl;
  const body = subscriptionMessage(job.event, {
    store: sub.store,
    product: sub.product,
    plan: sub.plan,
    amount: `${formatMoney(Number(renewal?.price_minor ?? sub.price_minor))} ${sub.currency}`,
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
