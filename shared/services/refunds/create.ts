import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../unit-of-work';
import { OPEN_REFUND_STATES, Refund, RefundKind } from '../../../db/models';
import { ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import { formatMoney } from '../../money';
import { isRefundingProvider, PaymentProviders } from '../../providers/types';
import type { Queues } from '../../queues';
import { settleRefund } from './settle';
import { refundView } from './view';

/** What adding and sending refunds needs of the process's wiring. */
export interface RefundDeps {
  knex: Knex;
  queues: Queues;
  logger: Logger;
  providers: PaymentProviders;
  config: { merchantWebhookRetryDelayMs: number; refundRetryDelayMs: number };
}

/**
 * The reason of the refund the platform adds itself for a payment whose keys or stock were sold while it
 * was being paid (shared/services/payments/reconcile.ts); the buyer's message and page name it.
 */
export const SOLD_OUT_REASON = 'sold_out';

/** A refund as the merchant asks for it. */
export interface RefundInput {
  /** Minor units; omitted: what is left of the payment. */
  amountMinor?: number;
  reason?: string | null;
  /** The merchant's note (a manual refund without one gets the instructions of its method). */
  note?: string | null;
  /** Take the goods back (order Refunded); default: only when nothing of the payment is left after it. */
  withdrawGoods?: boolean;
  /** The request's Idempotency-Key header. */
  requestKey?: string | null;
}

export { REFUND_ATTEMPTS, refundJobId, enqueueRefundJob } from './job';

/**
 * Provider refunds go through the provider's API (Moyasar, the sandbox). Everything else is manual: the
 * methods without a refund API (bank transfer, PayPal by link, crypto through Coinbase Commerce), and a
 * payment the merchant marked paid by hand, since no money went through the provider then.
 */
async function refundKind(
  providers: PaymentProviders,
  trx: Knex.Transaction,
  payment: { id: number; provider: string; provider_payment_id: string | null },
): Promise<RefundKind> {
  const adapter = (providers as Readonly<Record<string, unknown>>)[payment.provider];
  if (!isRefundingProvider(adapter) || !payment.provider_payment_id) return 'manual';
  const paid = await trx('payment_events')
    .where({ payment_id: payment.id, to_status: 'paid' })
    .orderBy('id', 'desc')
    .first<{ source: string } | undefined>('source');
  return paid?.source === 'merchant' ? 'manual' : 'provider';
}

const MANUAL_HOW: Record<string, { en: string; ar: string }> = {
  bank: { en: 'by bank transfer', ar: 'بتحويل بنكي' },
  paypal: { en: 'through PayPal', ar: 'عبر PayPal' },
  coinbase: {
    en: 'in cryptocurrency from your Coinbase Commerce account',
    ar: 'بالعملة الرقمية من حساب Coinbase Commerce',
  },
};

/** What a manual refund tells the merchant to do, in English and Arabic. */
export function manualRefundNote(method: string, amountMinor: number, currency: string): string {
  const amount = `${formatMoney(amountMinor, currency)} ${currency}`;
  const how = MANUAL_HOW[method] ?? { en: 'yourself', ar: 'بنفسك' };
  return (
    `Manual refund: return ${amount} to the buyer ${how.en}; the platform does not move this money. ` +
    `/ استرداد يدوي: أعد ${amount} إلى المشتري ${how.ar}؛ المنصة لا تحوّل هذا المبلغ.`
  );
}

/**
 * Adds a refund of an order's payment, in the caller's transaction with the order row locked (so two
 * refunds of one order at once serialise, and the second sees the first's amount). The amounts of a
 * payment's refunds that are not failed never exceed what was paid: more is a 422 naming `amount`.
 * Emits `refund.created` in the caller's unit of work (its subscribers send a provider refund to the
 * provider: shared/events/subscribers.ts). A provider refund starts `requested`; a manual one is `succeeded` at
 * once. `whole` (the status change to Refunded): what is left, and nothing to refund is not an error
 * (null).
 */
export async function addRefund(
  deps: Pick<RefundDeps, 'providers'>,
  uow: UnitOfWork,
  order: { id: number; store_id: number; payment_id: number | null },
  input: RefundInput,
  actor: { merchantTokenId: number | null },
  now: Date,
  opts: { whole?: boolean } = {},
): Promise<Refund | null> {
  const { trx } = uow;
  const refuse = (message: string): null => {
    if (opts.whole) return null;
    throw ValidationError.field('amount', message);
  };
  const payment = order.payment_id
    ? await trx('payments').where('id', order.payment_id).forUpdate().first()
    : undefined;
  if (!payment) return refuse('Nothing was paid for this order, so there is nothing to refund.');
  if (payment.status === 'refunded') return refuse('This order has been refunded in full already.');
  if (payment.status !== 'paid') {
    return refuse(`The order’s payment is ${payment.status}, not paid: there is nothing to refund.`);
  }
  const paid = Number(payment.amount_minor);
  const committed = await trx('refunds')
    .where('payment_id', payment.id)
    .whereIn('status', [...OPEN_REFUND_STATES, 'succeeded'])
    .sum<{ total: number | null }>('amount_minor as total')
    .first();
  const left = paid - Number(committed?.total ?? 0);
  if (left <= 0) return refuse('This order has been refunded in full already (or its refunds are pending).');
  const amount = input.amountMinor ?? left;
  if (amount > left) {
    throw ValidationError.field(
      'amount',
      `At most ${formatMoney(left, payment.currency)} ${payment.currency} can be refunded: ` +
        `${formatMoney(paid, payment.currency)} was paid and ${formatMoney(paid - left, payment.currency)} is refunded or being refunded.`,
    );
  }

  const kind = await refundKind(deps.providers, trx, payment);
  const inserted = await Refund.query(trx).insertAndFetch({
    store_id: order.store_id,
    order_id: order.id,
    payment_id: payment.id,
    amount_minor: amount,
    currency: payment.currency,
    kind,
    provider: payment.provider,
    status: 'requested',
    reason: input.reason ?? null,
    note:
      input.note ?? (kind === 'manual' ? manualRefundNote(payment.method, amount, payment.currency) : null),
    withdraw_goods: input.withdrawGoods ?? amount === left,
    idempotency_key: `rfd_${crypto.randomUUID().replace(/-/g, '')}`,
    request_key: input.requestKey ?? null,
    merchant_token_id: actor.merchantTokenId,
    created_at: now,
    updated_at: now,
  });
  await uow.emit({
    type: 'refund.created',
    id: `refund.created:${inserted.id}`,
    storeId: order.store_id,
    data: { ...refundView(inserted) },
    at: now,
  });
  if (kind === 'manual') {
    return settleRefund(uow, inserted.id, { status: 'succeeded', providerStatus: 'manual' }, 'merchant', now);
  }
  return inserted;
}
