import { OrderStatus } from '../../../db/models';
import { NotFoundError, ValidationError } from '../../errors';
import type { Logger } from '../../logger';
import type { Queues } from '../../queues';
import { unitOfWork, type UnitOfWork } from '../../unit-of-work';
import { ORDER_NOT_FOUND, planStatusChange, STATUS_LABELS } from './lifecycle';
import { LockedOrder, StepDeps, StepEffects, STEPS } from './steps';

/**
 * An order's status change, the one place it happens, whoever asks (the Merchant API's PUT
 * /shawarma/orders/{id}, the dashboard, the refunds service, a provider's payment confirmation, the
 * fulfilment job, the manual-payment expiry; test/unit/order-status-writes.test.ts keeps it so): the order row read and locked once, the steps of the lifecycle table
 * (lifecycle.ts) run in order (steps.ts), and what they did recorded once: one `order_status_events`
 * audit row and the events, emitted through the unit of work (their subscribers, shared/events/subscribers.ts,
 * write the merchant webhooks and stage the follow-up jobs in the outbox). Effects outside Postgres (jobs,
 * cache counters) go out after the commit (shared/unit-of-work.ts).
 */

/**
 * Who changed the status (the status event's `source`, shown in the order's history): the merchant (the
 * Merchant API with its token, the dashboard), the buyer, a payment provider's confirmation, or the
 * platform itself (fulfilment, the manual-payment expiry). Absent `kind`: the merchant.
 */
export type OrderActorKind = 'merchant' | 'buyer' | 'provider' | 'system';
export interface OrderActor {
  kind?: OrderActorKind;
  merchantTokenId?: number | null;
}

export interface ChangeStatusDeps extends StepDeps {
  queues: Queues;
  logger: Logger;
  config: StepDeps['config'] & { merchantWebhookRetryDelayMs: number; queuePrefix: string };
}

export interface StatusChange {
  id: number;
  status: OrderStatus;
  status_label: string;
  previous_status: OrderStatus;
  changed: boolean;
  licenses_revoked: number;
  licenses_activated: number;
  /** The refund a move to Refunded made (absent when nothing was paid, or nothing is left to refund). */
  refund_id?: number;
}

export interface ChangeStatusOptions {
  actor: OrderActor;
  /** Why, kept in the status event's data (`reason`) and the `order.status_changed` webhook. */
  reason?: string;
  now?: Date;
  /**
   * Only from these statuses: an order found in another (someone else moved it first) is left as it is and
   * answered unchanged, instead of refused. Workers and providers use it (fulfilment completes only an
   * order still In progress; the manual-payment expiry cancels only one still Under review).
   */
  onlyFrom?: readonly OrderStatus[];
  /**
   * Inside another writer's unit of work (a payment's reconciliation, the manual-payment expiry, the
   * refunds service): its effects wait for that unit's commit.
   */
  within?: { uow: UnitOfWork };
  /** The fulfilment job is the caller (it completes the order it fulfils): no fulfilment job is staged. */
  fulfilling?: boolean;
}

export async function changeOrderStatus(
  deps: ChangeStatusDeps,
  storeId: number,
  orderId: number,
  target: OrderStatus,
  opts: ChangeStatusOptions,
): Promise<StatusChange> {
  const now = opts.now ?? new Date();
  const run = async (uow: UnitOfWork): Promise<StatusChange> => {
    const order = await uow
      .trx<LockedOrder>('orders')
      .where({ id: orderId, store_id: storeId })
      .forUpdate()
      .first();
    if (!order) throw new NotFoundError(ORDER_NOT_FOUND);
    const from = Number(order.status) as OrderStatus;
    const base = { id: orderId, previous_status: from, licenses_revoked: 0, licenses_activated: 0 };
    if (opts.onlyFrom && !opts.onlyFrom.includes(from)) {
      return { ...base, status: from, status_label: STATUS_LABELS[from], changed: false };
    }
    const plan = planStatusChange(from, target, { fulfilling: opts.fulfilling });
    if (plan.kind === 'unchanged') {
      return { ...base, status: from, status_label: STATUS_LABELS[from], changed: false };
    }
    if (plan.kind === 'refused') throw new ValidationError({ status: [plan.message] }, plan.message);

    const done: StepEffects[] = [];
    for (const step of plan.steps) {
      done.push(await STEPS[step]({ deps, uow, order, target, now, actor: opts.actor }));
    }
    const change = { storeId, order, from, target, now, actor: opts.actor, reason: opts.reason };
    return record(deps, uow, change, done, base);
  };
  if (opts.within) return run(opts.within.uow);
  return unitOfWork(deps, run);
}

/** Records what the steps did, once: the audit row, the webhook events, the staged jobs. */
async function record(
  deps: ChangeStatusDeps,
  uow: UnitOfWork,
  change: {
    storeId: number;
    order: LockedOrder;
    from: OrderStatus;
    target: OrderStatus;
    now: Date;
    actor: OrderActor;
    reason?: string;
  },
  done: StepEffects[],
  base: Pick<StatusChange, 'id' | 'previous_status'>,
): Promise<StatusChange> {
  const { storeId, order, from, target, now } = change;
  const trx = uow.trx;
  const licensesRevoked = done.reduce((n, e) => n + (e.licensesRevoked ?? 0), 0);
  const licensesActivated = done.reduce((n, e) => n + (e.licensesActivated ?? 0), 0);
  const refundId = done.find((e) => e.refundId !== undefined)?.refundId;
  const data: Record<string, unknown> = Object.assign({}, ...done.map((e) => e.data ?? {}), {
    licenses_revoked: licensesRevoked,
    licenses_activated: licensesActivated,
    ...(change.reason !== undefined ? { reason: change.reason } : {}),
  });
  const [audit] = await trx('order_status_events')
    .insert({
      store_id: storeId,
      order_id: order.id,
      from_status: from,
      to_status: target,
      source: change.actor.kind ?? 'merchant',
      merchant_token_id: change.actor.merchantTokenId ?? null,
      data: JSON.stringify(data),
      created_at: now,
    })
    .returning('id');
  const auditId = Number((audit as { id: number }).id);
  for (const event of done.flatMap((e) => e.events ?? [])) await uow.emit({ ...event, storeId, at: now });
  // Its subscribers: the merchant's webhook, and the fulfilment job when a step calls for one.
  await uow.emit({
    type: 'order.status_changed',
    id: `order.status_changed:${auditId}`,
    storeId,
    at: now,
    data: {
      order_id: order.id,
      from,
      to: target,
      status_label: STATUS_LABELS[target],
      ...(change.reason !== undefined ? { reason: change.reason } : {}),
    },
    facts: { auditId, fulfil: done.find((e) => e.fulfil)?.fulfil },
  });

  return {
    ...base,
    status: target,
    status_label: STATUS_LABELS[target],
    changed: true,
    licenses_revoked: licensesRevoked,
    licenses_activated: licensesActivated,
    ...(refundId !== undefined ? { refund_id: refundId } : {}),
  };
}
