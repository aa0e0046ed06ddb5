import { OPEN_REFUND_STATES, ORDER_STATUS, OrderStatus } from '../../../db/models';
import { recordPaidOrderGrowth } from '../growth/paid';
import { productCounter } from '../catalogue/cache';
import { formatMoney } from '../../money';
import type { UnitOfWork } from '../../unit-of-work';
import { activateOrderLicenses, noteOrderLicensesChangedOn } from '../licenses';
import type { LicenseCacheDeps } from '../licenses/cache';
import type { MerchantEvent } from '../webhooks/events';
import { confirmLockedManualPayment } from '../payment-records/manual';
import { addRefund, RefundDeps } from '../refunds/create';
import type { OrderActor } from './change-status';
import type { OrderStep } from './lifecycle';
import { returnUndeliveredStock, withdrawOrder } from './withdraw';

/** The order row as read (and locked) once by changeOrderStatus. */
export interface LockedOrder {
  id: number;
  store_id: number;
  status: number | string;
  payment_id: number | null;
  total_minor: number | string;
  currency: string;
  source: string;
}

export type StepDeps = RefundDeps & LicenseCacheDeps;

export interface StepContext {
  deps: StepDeps;
  uow: UnitOfWork;
  order: LockedOrder;
  target: OrderStatus;
  now: Date;
  actor: OrderActor;
}

/** What a step did: recorded once, with the audit row, by changeOrderStatus. */
export interface StepEffects {
  /** Merged into the audit row's `data`. */
  data?: Record<string, unknown>;
  events?: MerchantEvent[];
  licensesRevoked?: number;
  licensesActivated?: number;
  refundId?: number;
  /** The fulfilment job to stage with the change. */
  fulfil?: 'paid' | 'completed';
}

const paidEvent = (ctx: StepContext): MerchantEvent => ({
  id: `order.paid:${ctx.order.id}`,
  type: 'order.paid',
  data: {
    order_id: ctx.order.id,
    status: ctx.target,
    total: formatMoney(Number(ctx.order.total_minor), ctx.order.currency),
    currency: ctx.order.currency,
    source: ctx.order.source,
  },
});

/** The order's payment is paid (a manual confirmation or the merchant's mark-paid): In progress, invoiced. */
async function confirmPayment(ctx: StepContext): Promise<StepEffects> {
  await confirmLockedManualPayment(ctx.uow, ctx.order, ctx.now);
  await ctx.uow
    .trx('orders')
    .where('id', ctx.order.id)
    .update({ status: ORDER_STATUS.IN_PROGRESS, updated_at: ctx.now });
  await recordPaidOrderGrowth(ctx.uow, ctx.order.id, ctx.now);
  return { data: { payment_confirmed: true }, events: [paidEvent(ctx)] };
}

/** One function per step of the lifecycle table (lifecycle.ts). */
export const STEPS: Readonly<Record<OrderStep, (ctx: StepContext) => Promise<StepEffects>>> = {
  async review({ uow, order, target, now }) {
    await uow.trx('orders').where('id', order.id).update({ status: target, updated_at: now });
    return {};
  },

  'confirm-manual-payment': confirmPayment,
  // The merchant's "mark as paid" confirms the payment the same way a manual payment's confirmation does.
  'mark-paid': confirmPayment,

  async complete({ uow, order, now }) {
    await uow
      .trx('orders')
      .where('id', order.id)
      .update({ status: ORDER_STATUS.COMPLETED, completed_at: now, updated_at: now });
    return { licensesActivated: await activateOrderLicenses(uow.trx, order.id, now) };
  },

  async 'refund-payment'({ deps, uow, order, actor, now }) {
    // A refund that takes the goods back returns the money already (the refunds service moves the order
    // once it has succeeded, or the merchant sets Refunded while it is pending): no second refund.
    const taking = await uow
      .trx('refunds')
      .where({ order_id: order.id, withdraw_goods: true })
      .whereIn('status', [...OPEN_REFUND_STATES, 'succeeded'])
      .first<{ id: number } | undefined>('id');
    if (taking) return { data: { refund_id: Number(taking.id) } };
    // The money goes back through the refunds service: what is left of the payment, in full.
    const by = { merchantTokenId: actor.merchantTokenId ?? null };
    const refund = await addRefund(deps, uow, order, { withdrawGoods: true }, by, now, {
      whole: true,
    });
    return refund ? { refundId: refund.id, data: { refund_id: refund.id } } : {};
  },

  async withdraw({ uow, order, target, now }) {
    const outcome = target === ORDER_STATUS.CANCELLED ? 'cancelled' : 'refunded';
    // The payment is the refunds service's to move, once the money is back.
    const { licensesRevoked, events } = await withdrawOrder(uow, order, outcome, now, {
      movePayment: false,
    });
    // The verify cache hears of the revoke once the unit of work commits.
    if (licensesRevoked > 0) await noteOrderLicensesChangedOn(uow, order.id);
    // Code keys back on sale: the stock their products' answers show.
    const products = await uow
      .trx('order_items')
      .where('order_id', order.id)
      .whereNotNull('product_id')
      .pluck<number[]>('product_id');
    uow.bump(products.map((id) => productCounter(Number(id))));
    return { licensesRevoked, events };
  },

  async 'return-stock'({ uow, order }) {
    const { units, productIds } = await returnUndeliveredStock(uow.trx, order.id);
    uow.bump(productIds.map(productCounter));
    return { data: { stock_returned: units } };
  },

  async fulfil({ target }) {
    // Staged by changeOrderStatus: the job id names the audit row, written after the steps.
    return { fulfil: target === ORDER_STATUS.COMPLETED ? 'completed' : 'paid' };
  },
};
