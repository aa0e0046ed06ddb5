import { Checkout, Store } from '../../../db/models';
import { randomToken, sha256 } from '../../crypto';
import { checkoutLines } from '../checkout-records/lines';
import { ReminderRefs } from '../growth/reminder-refs';
import { buyerFromGuest } from './buyer';
import { type CheckoutDeps, openCheckout, paymentUrl } from './index';

/**
 * A checkout resumed from its abandoned-checkout reminder (docs/growth.md, "Abandoned checkouts"): the
 * reminders themselves (who gets one, when, opting out) are growth's (growth/abandoned.ts); what the
 * reminder's address opens is a checkout, made here.
 */

export type ResumeAnswer =
  | { kind: 'redirect'; url: string }
  | { kind: 'paid' }
  | { kind: 'gone'; reason: string }
  | { kind: 'not_found' };

/**
 * GET on a reminder's address. The payment step of the checkout when it can still be paid (its bearer
 * address is issued anew: only its hash is kept, so the old one stops working); else a new checkout with
 * the same lines, buyer and creator at today's price and stock (and the reminder's coupon), whose payment
 * step it leads to. A rebuilt checkout still live is resumed rather than rebuilt again, so following the
 * link many times holds stock once.
 */
export async function resumeReminder(
  deps: CheckoutDeps & { appSecret: string; appSecretPrevious?: readonly string[] },
  ref: string,
  now: Date = new Date(),
): Promise<ResumeAnswer> {
  const id = new ReminderRefs(deps.appSecret, deps.appSecretPrevious ?? []).parse(ref);
  if (id === null) return { kind: 'not_found' };
  const reminder = await deps.knex('checkout_reminders').where('id', id).first();
  if (!reminder) return { kind: 'not_found' };
  if (reminder.recovered_order_id !== null) return { kind: 'paid' };
  const original = await Checkout.query(deps.knex).findById(reminder.checkout_id);
  if (!original) return { kind: 'not_found' };
  if (original.status === 'paid') return { kind: 'paid' };

  const rebuilt = await Checkout.query(deps.knex).where('reminder_id', id).orderBy('id', 'desc').first();
  if (rebuilt?.status === 'paid') return { kind: 'paid' };
  for (const candidate of [rebuilt, original]) {
    if (!candidate) continue;
    const live =
      (candidate.status === 'created' || candidate.status === 'payment_initiated') &&
      new Date(candidate.expires_at) > now;
    // The original keeps its price unless the reminder offers a coupon it does not have.
    const wantsCoupon = candidate === original && reminder.coupon_code && candidate.coupon_id === null;
    if (live && !wantsCoupon) {
      const url = randomToken(32);
      const n = await deps
        .knex('checkouts')
        .where('id', candidate.id)
        .whereIn('status', ['created', 'payment_initiated'])
        .update({ token_hash: sha256(url), updated_at: now });
      if (n > 0) return { kind: 'redirect', url: paymentUrl(deps.config.publicBaseUrl, url) };
    }
  }
  return rebuild(deps, original, id, reminder.coupon_code as string | null);
}

async function rebuild(
  deps: CheckoutDeps,
  original: Checkout,
  reminderId: number,
  reminderCoupon: string | null,
): Promise<ResumeAnswer> {
  const store = await Store.query(deps.knex).findById(original.store_id);
  if (!store) return { kind: 'not_found' };
  const lines = await checkoutLines(deps.knex, original);
  const creator = original.creator_id
    ? await deps.knex('creators').where({ id: original.creator_id, active: true }).first('code')
    : undefined;
  const originalCoupon = original.coupon_id
    ? await deps.knex('coupons').where('id', original.coupon_id).first('code')
    : undefined;
  const buyer = {
    ...buyerFromGuest(
      {
        customer_first_name: original.customer_first_name,
        customer_last_name: original.customer_last_name,
        customer_email: original.customer_email,
        customer_country_code: original.customer_country_code,
        customer_phone: original.customer_phone,
      },
      original.locale === 'ar' ? 'ar' : original.locale === 'en' ? 'en' : undefined,
    ),
    customerId: original.customer_id,
  };
  const attempt = (coupon: string | undefined) =>
    openCheckout({ ...deps, clientIp: undefined }, store, buyer, {
      lines: lines.map((l) => ({
        product_id: l.product_id,
        quantity: l.quantity,
        ...(l.plan_id ? { subscription_plan: l.plan_id } : {}),
        fields: (l.fields ?? {}) as Record<string, unknown>,
      })),
      coupon_code: coupon,
      creator_code: creator?.code,
      customer_note: original.customer_note ?? undefined,
      source: original.source,
    });
  let result;
  try {
    result = await attempt(reminderCoupon ?? originalCoupon?.code);
  } catch (err) {
    // A coupon that cannot be used any more: the same content without it.
    if (!(reminderCoupon ?? originalCoupon?.code)) return gone(err);
    try {
      result = await attempt(undefined);
    } catch (second) {
      return gone(second);
    }
  }
  if (result.type !== 'payment_required') return { kind: 'paid' };
  await deps.knex('checkouts').where('id', result.checkout_id).update({ reminder_id: reminderId });
  // The original, still unpaid, is replaced: it stops being payable and its hold goes back at expiry.
  await deps
    .knex('checkouts')
    .where('id', original.id)
    .whereIn('status', ['created', 'payment_initiated'])
    .where('expires_at', '>', new Date())
    .update({ expires_at: new Date(), updated_at: new Date() });
  return { kind: 'redirect', url: result.payment_url };
}

function gone(err: unknown): ResumeAnswer {
  const message = err instanceof Error ? err.message : 'This order cannot be completed any more.';
  return { kind: 'gone', reason: message };
}
