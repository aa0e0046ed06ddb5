import type { Knex } from 'knex';
import {
  Order,
  OrderItem,
  Product,
  ProductPlan,
  Subscription,
  SubscriptionRenewal,
  SubscriptionStatus,
} from '../../../db/models';
import { productTemplates, queueItemCommands } from './fivem';
import { periodEnd } from '../licenses/periods';
import type { SubscriptionEventType, SubscriptionFacts } from '../../events/types';
import type { UnitOfWork } from '../../unit-of-work';

/**
 * The moves of a subscription that change what it grants, each inside the caller's unit of work with the
 * subscription row locked. They emit their events there (shared/events/subscribers.ts: the merchant's
 * webhook, and the buyer's message when the caller says the buyer is told): nothing follows a rolled-back
 * change.
 */

/** The buyer's message a move comes with (`message-job.ts`): it is staged with the event. */
export type BuyerMessage = NonNullable<SubscriptionFacts['message']>;

/** A subscription's merchant event; ids are deterministic so a repeated move delivers once. */
export function subscriptionEvent<T extends SubscriptionEventType>(
  type: T,
  idSuffix: string,
  sub: Pick<Subscription, 'id' | 'product_id' | 'plan_id' | 'customer_id' | 'order_id' | 'status'>,
  extra: Record<string, unknown> = {},
): { id: string; type: T; data: Record<string, unknown> } {
  return {
    id: `${type}:${sub.id}:${idSuffix}`,
    type,
    data: {
      subscription_id: sub.id,
      status: sub.status,
      product_id: sub.product_id,
      plan_id: sub.plan_id,
      customer_id: sub.customer_id,
      order_id: sub.order_id,
      ...extra,
    },
  };
}

export async function lockSubscription(trx: Knex.Transaction, id: number): Promise<Subscription | undefined> {
  return Subscription.query(trx).findById(id).forUpdate();
}

/**
 * The unpaid renewal checkouts of a subscription (the payment links sent when there is no saved card, or
 * after a declined charge) are cancelled: their page then answers that the subscription was cancelled
 * (payments/hosted-page.ts) and no payment can start on them. Every way a subscription is cancelled calls
 * this: the merchant or the buyer (cancel.ts), an order cancelled or refunded (orders/withdraw.ts).
 */
export async function voidRenewalLinks(
  trx: Knex.Transaction,
  subscriptionIds: readonly number[],
): Promise<void> {
  await trx('checkouts')
    .whereIn(
      'id',
      trx('subscription_renewals')
        .whereIn('subscription_id', subscriptionIds)
        // Not `charging`: a charge in flight settles on its checkout (its answer decides).
        .whereIn('status', ['pending', 'link_sent', 'failed'])
        .whereNotNull('checkout_id')
        .select('checkout_id'),
    )
    .whereIn('status', ['created', 'payment_initiated'])
    .update({ status: 'cancelled', updated_at: trx.fn.now() });
}

/**
 * A renewal's order exists and is paid: the renewal is marked paid, and the subscription moves one period
 * on from the renewal's start (only while its period still ends there, so a repeat moves nothing), takes the
 * terms the renewal was charged at (a plan change or new price that was waiting), and is active again. The licenses the subscription's first order item
 * carries are extended to the new period end (and revived if a lapse had expired them meanwhile).
 * Answers null when the renewal was paid already.
 */
export async function applyPaidRenewal(
  uow: UnitOfWork,
  renewalId: number,
  order: Pick<Order, 'id'>,
  now: Date,
): Promise<{ subscriptionId: number; periodEnd: Date | null } | null> {
  const { trx } = uow;
  const renewal = await SubscriptionRenewal.query(trx).findById(renewalId).forUpdate();
  if (!renewal || renewal.status === 'paid') return null;
  const sub = await lockSubscription(trx, renewal.subscription_id);
  if (!sub) return null;
  await SubscriptionRenewal.query(trx)
    .patch({ status: 'paid', order_id: order.id, next_attempt_at: null, last_error: null })
    .where('id', renewal.id);

  let end = sub.current_period_end;
  const samePeriod =
    sub.current_period_end !== null &&
    new Date(sub.current_period_end).getTime() === new Date(renewal.period_start).getTime();
  if (samePeriod) {
    const plan = await ProductPlan.query(trx).findById(renewal.plan_id);
    end = periodEnd(new Date(renewal.period_start), plan?.duration ?? null);
    const status: SubscriptionStatus =
      sub.status === 'active' || sub.status === 'past_due' ? 'active' : sub.status;
    await Subscription.query(trx)
      .patch({
        current_period_start: renewal.period_start,
        current_period_end: end,
        plan_id: renewal.plan_id,
        status,
        past_due_since: null,
        ended_at: null,
        ...termsAfter(sub, renewal),
      })
      .where('id', sub.id);
    if (sub.order_item_id !== null && end !== null) {
      await trx('licenses')
        .where('order_item_id', sub.order_item_id)
        .whereIn('status', ['active', 'expired'])
        .update({ status: 'active', expires_at: end, updated_at: now });
    }
    const moved = { ...sub, status, plan_id: renewal.plan_id };
    await uow.emit({
      ...subscriptionEvent('subscription.renewed', `r${renewal.id}`, moved, {
        renewal_order_id: order.id,
        current_period_end: end?.toISOString() ?? null,
      }),
      storeId: sub.store_id,
      at: now,
      facts: { message: { event: 'renewed', renewalId: renewal.id, attempt: 0 } },
    });
  }
  return { subscriptionId: sub.id, periodEnd: end };
}

/**
 * The terms a paid renewal leaves: a renewal that took the waiting terms (terms.ts) makes its plan and
 * price the agreed ones, and clears them when they are still the ones waiting (newer terms stay waiting).
 */
function termsAfter(
  sub: Subscription,
  renewal: SubscriptionRenewal,
): Partial<Pick<Subscription, 'price_minor' | 'next_plan_id' | 'next_price_minor' | 'next_terms_from'>> {
  if (!renewal.new_terms) {
    return { next_plan_id: sub.next_plan_id === renewal.plan_id ? null : sub.next_plan_id };
  }
  const price = renewal.price_minor === null ? null : Number(renewal.price_minor);
  const stillWaiting =
    (sub.next_plan_id ?? sub.plan_id) === renewal.plan_id &&
    (sub.next_price_minor === null ? null : Number(sub.next_price_minor)) === price;
  return {
    ...(price !== null ? { price_minor: price } : {}),
    ...(stillWaiting ? { next_plan_id: null, next_price_minor: null, next_terms_from: null } : {}),
  };
}

/**
 * What a period granted ends: the subscription becomes `expired` (a lapse after the last failed try) or
 * `cancelled`; its licenses expire now; the product's FiveM `on_expiry` commands are queued against the
 * first order item (its player field names the player). `ended_at` makes this happen once. `message`: the
 * buyer is told (with the event).
 */
export async function endSubscription(
  uow: UnitOfWork,
  sub: Subscription,
  status: 'expired' | 'cancelled',
  now: Date,
  message?: BuyerMessage,
): Promise<void> {
  const { trx } = uow;
  if (sub.ended_at !== null) return;
  await Subscription.query(trx)
    .patch({
      status,
      ended_at: now,
      cancel_at_period_end: false,
      past_due_since: null,
      ...(status === 'cancelled' && sub.cancelled_at === null ? { cancelled_at: now } : {}),
    })
    .where('id', sub.id);
  if (sub.order_item_id !== null) {
    await trx('licenses')
      .where('order_item_id', sub.order_item_id)
      .where('status', 'active')
      .update({ status: 'expired', expires_at: now, updated_at: now });
    const item = await OrderItem.query(trx).findById(sub.order_item_id);
    const order = item ? await Order.query(trx).findById(item.order_id) : undefined;
    const product = await Product.query(trx).findById(sub.product_id);
    const templates = await productTemplates(trx, sub.product_id, 'expiry');
    if (item && order && product && templates.length > 0) {
      await queueItemCommands(trx, order, item, product, templates, 'expiry', now);
    }
  }
  const type = status === 'expired' ? 'subscription.expired' : 'subscription.cancelled';
  await uow.emit({
    // subscription.cancelled:<id> is the id a cancelled order's subscription uses too: one event per subscription.
    ...(status === 'cancelled'
      ? { ...subscriptionEvent(type, '', { ...sub, status }), id: `subscription.cancelled:${sub.id}` }
      : subscriptionEvent(type, 'end', { ...sub, status })),
    storeId: sub.store_id,
    at: now,
    facts: message ? { message } : undefined,
  });
}
