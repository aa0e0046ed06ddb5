import type { Knex } from 'knex';
import { ValidationError } from '../../errors';
import { formatMoney } from '../../money';
import type { Refund } from '../../../db/models';
import { type CreatorRow, findCreatorByCode } from './creators';

/** The creators' ledger (`creator_commissions`): commission earned per paid order, reversed per refund or dispute. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** The commission on `paidMinor` at `bp` basis points, rounded half up to the minor unit. */
export function commissionOf(paidMinor: number, bp: number): number {
  return Number(divideHalfUp(BigInt(paidMinor) * BigInt(bp), 10_000n));
}

/**
 * Credits the creator of a paid order's checkout with its commission, in the transaction that made the
 * order paid. Once per order (a unique index): a repeat does nothing. Returns the row written, if any.
 */
export interface LedgerEntry {
  storeId: number;
  creatorId: number;
  code: string;
  orderId: number;
  kind: 'earned' | 'reversed';
  refundId: number | null;
  revenueMinor: number;
  commissionMinor: number;
  currency: string;
}

/** The `creator.commission` webhook event of a ledger row (docs/growth.md). */
export function commissionEvent(entry: LedgerEntry) {
  return {
    type: 'creator.commission' as const,
    id: `creator.commission:${entry.kind}:${entry.refundId !== null ? `refund-${entry.refundId}` : `order-${entry.orderId}`}`,
    storeId: entry.storeId,
    data: {
      creator_id: entry.creatorId,
      code: entry.code,
      order_id: entry.orderId,
      kind: entry.kind,
      refund_id: entry.refundId,
      revenue: formatMoney(entry.revenueMinor, entry.currency),
      commission: formatMoney(entry.commissionMinor, entry.currency),
      currency: entry.currency,
    },
  };
}

export async function creditCreatorForOrder(trx: Knex, orderId: number): Promise<LedgerEntry | null> {
  const row = await trx('orders as o')
    .join('checkouts as c', 'c.id', 'o.checkout_id')
    .join('creators as cr', 'cr.id', 'c.creator_id')
    .where('o.id', orderId)
    .first<
      | {
          store_id: number;
          creator_id: number;
          code: string;
          total_minor: string;
          currency: string;
          commission_bp: number;
        }
      | undefined
    >('o.store_id', 'cr.id as creator_id', 'cr.code', 'o.total_minor', 'o.currency', 'cr.commission_bp');
  if (!row) return null;
  const paid = Number(row.total_minor);
  const commission = commissionOf(paid, Number(row.commission_bp));
  const inserted = await trx.raw(
    `insert into creator_commissions (store_id, creator_id, order_id, kind, revenue_minor, commission_minor, currency)
     values (?, ?, ?, 'earned', ?, ?, ?)
     on conflict (order_id) where kind = 'earned' do nothing
     returning id`,
    [row.store_id, row.creator_id, orderId, paid, commission, row.currency],
  );
  if ((inserted as { rows: unknown[] }).rows.length === 0) return null;
  return {
    storeId: Number(row.store_id),
    creatorId: Number(row.creator_id),
    code: row.code,
    orderId,
    kind: 'earned',
    refundId: null,
    revenueMinor: paid,
    commissionMinor: commission,
    currency: row.currency,
  };
}

/** What is left of an order's commission: earned less what refunds and disputes took back. */
async function remainingOf(trx: Knex, orderId: number) {
  const earned = await trx('creator_commissions as cc')
    .join('creators as c', 'c.id', 'cc.creator_id')
    .where({ 'cc.order_id': orderId, 'cc.kind': 'earned' })
    .forUpdate('cc')
    .first<
      | {
          store_id: number;
          creator_id: number;
          code: string;
          revenue_minor: string;
          commission_minor: string;
          currency: string;
        }
      | undefined
    >('cc.store_id', 'cc.creator_id', 'c.code', 'cc.revenue_minor', 'cc.commission_minor', 'cc.currency');
  if (!earned) return null;
  const back = await trx('creator_commissions')
    .where({ order_id: orderId, kind: 'reversed' })
    .first<{ revenue: string | null; commission: string | null }>(
      trx.raw('sum(revenue_minor) as revenue'),
      trx.raw('sum(commission_minor) as commission'),
    );
  return {
    earned,
    revenue: Number(earned.revenue_minor) + Number(back?.revenue ?? 0),
    commission: Number(earned.commission_minor) + Number(back?.commission ?? 0),
  };
}

async function reverse(
  trx: Knex,
  state: NonNullable<Awaited<ReturnType<typeof remainingOf>>>,
  orderId: number,
  refundId: number | null,
  revenue: number,
  commission: number,
): Promise<LedgerEntry | null> {
  const conflict =
    refundId !== null
      ? 'on conflict (refund_id) where refund_id is not null do nothing'
      : "on conflict (order_id) where kind = 'reversed' and refund_id is null do nothing";
  const inserted = await trx.raw(
    `insert into creator_commissions (store_id, creator_id, order_id, kind, refund_id, revenue_minor, commission_minor, currency)
     values (?, ?, ?, 'reversed', ?, ?, ?, ?)
     ${conflict}
     returning id`,
    [
      state.earned.store_id,
      state.earned.creator_id,
      orderId,
      refundId,
      -revenue,
      -commission,
      state.earned.currency,
    ],
  );
  if ((inserted as { rows: unknown[] }).rows.length === 0) return null;
  return {
    storeId: Number(state.earned.store_id),
    creatorId: Number(state.earned.creator_id),
    code: state.earned.code,
    orderId,
    kind: 'reversed',
    refundId,
    revenueMinor: -revenue,
    commissionMinor: -commission,
    currency: state.earned.currency,
  };
}

/**
 * A succeeded refund takes its share of the commission back: the refunded amount out of the revenue, and
 * the commission in the same proportion of what the order paid (rounded half up), never more than is
 * left; the refund that brings the order's refunds to its whole amount takes all that is left. Once per
 * refund (a unique index). Called by settleRefund in the transaction that marks the refund succeeded.
 */
export async function reverseCommissionForRefund(
  trx: Knex,
  refund: Pick<Refund, 'id' | 'order_id' | 'amount_minor'>,
): Promise<LedgerEntry | null> {
  const state = await remainingOf(trx, Number(refund.order_id));
  if (!state || state.revenue <= 0) return null;
  const paid = Number(state.earned.revenue_minor);
  const amount = Math.min(Number(refund.amount_minor), state.revenue);
  const whole = amount >= state.revenue;
  const commission = whole
    ? state.commission
    : Math.min(
        state.commission,
        Number(divideHalfUp(BigInt(Number(state.earned.commission_minor)) * BigInt(amount), BigInt(paid))),
      );
  return reverse(trx, state, Number(refund.order_id), Number(refund.id), amount, commission);
}

/**
 * A dispute takes back everything the order still holds of the creator's revenue and commission. For the
 * disputes flow to call in the transaction that marks the order disputed (and emit `commissionEvent` of
 * the answer through its unit of work); once per order.
 */
export async function reverseCommissionForDispute(trx: Knex, orderId: number): Promise<LedgerEntry | null> {
  const state = await remainingOf(trx, orderId);
  if (!state || (state.revenue <= 0 && state.commission <= 0)) return null;
  return reverse(trx, state, orderId, null, state.revenue, state.commission);
}

/**
 * The creator a checkout credits, and the discount the creator gives when no coupon does:
 * - `creator_code` names an active creator of the store, or the checkout is refused (422 naming it);
 * - else a `coupon_code` equal to an active creator's code credits that creator; when no coupon of the
 *   store has that code, the code is the creator's alone (`couponIsCreator`: no coupon is looked up).
 */
export async function creatorCreditOf(
  knex: Knex,
  storeId: number,
  creatorCode: string | undefined,
  couponCode: string | undefined,
): Promise<{ creator: CreatorRow | null; couponIsCreator: boolean; discountBp: number | null }> {
  const named = creatorCode?.trim();
  if (named) {
    const creator = await findCreatorByCode(knex, storeId, named);
    if (!creator) throw ValidationError.field('creator_code', 'No creator of this store has this code.');
    return { creator, couponIsCreator: false, discountBp: creator.discount_bp };
  }
  if (!couponCode) return { creator: null, couponIsCreator: false, discountBp: null };
  const creator = await findCreatorByCode(knex, storeId, couponCode);
  if (!creator) return { creator: null, couponIsCreator: false, discountBp: null };
  const coupon = await knex('coupons')
    .where('store_id', storeId)
    .whereRaw('lower(code) = lower(?)', [couponCode])
    .first('id');
  return { creator, couponIsCreator: !coupon, discountBp: creator.discount_bp };
}
