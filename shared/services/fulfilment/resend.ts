import crypto from 'node:crypto';
import { Order, OrderItem, Store } from '../../../db/models';
import { NotFoundError, ValidationError } from '../../errors';
import { orderBuyerLocale } from '../../i18n/buyer-locale';
import { stageJob } from '../../queues/outbox';
import { unitOfWork, type UnitOfWorkDeps } from '../../unit-of-work';
import { sendEmail } from '../emails';
import { documentLink } from '../invoices/read';
import { type Actor, recordAudit } from '../audit';
import {
  deliverables,
  deliveryEmailData,
  deliveryMessage,
  type DeliveryDeps,
  type DeliveryOutcome,
  recipientOf,
} from './delivery';
import { isFulfillable } from './rules';

/**
 * Sending an order's delivery again, from the dashboard's order page (docs/email.md, "Sending again"): by
 * message (WhatsApp first, SMS fallback) or by e-mail, with every good of the order as it is now (code
 * keys, license keys not revoked, download addresses, the invoice or receipt page).
 *
 * A resend is a new send: it has a key of its own, `order-delivery-resend:{order}:{channel}:{nonce}`, the
 * nonce drawn when the order page was rendered and carried by its form. A double click (or a resubmitted
 * form) carries the same nonce, so it finds the first one's audit row under the key's lock and sends
 * nothing more; the message job's id and the e-mail's (purpose, key, to) say the same to the queue and the
 * `emails` table. A new page render draws a new nonce: pressing again later sends again.
 */

export type ResendChannel = 'message' | 'email';

/** Why a resend was refused, for the page to say in its language; `errors` names the field. */
export type ResendRefusal = 'stale_form' | 'not_paid' | 'no_email' | 'nothing_to_send';

export class ResendRefusedError extends ValidationError {
  constructor(
    readonly reason: ResendRefusal,
    field: string,
    message: string,
  ) {
    super({ [field]: [message] }, message);
  }
}
export type ResendOutcome = 'queued' | 'duplicate';

export const RESEND_NONCE = /^[0-9a-f]{32}$/;

/** A fresh nonce for the order page's resend forms. */
export const resendNonce = (): string => crypto.randomBytes(16).toString('hex');

export const resendKey = (orderId: number, channel: ResendChannel, nonce: string): string =>
  `order-delivery-resend:${orderId}:${channel}:${nonce}`;

const jobIdOf = (orderId: number, nonce: string): string => `delivery-resend-${orderId}-${nonce}`;

/** Asks for the resend (the dashboard's POST): checks, then one e-mail or one message job, and the audit. */
export async function resendDelivery(
  deps: DeliveryDeps & UnitOfWorkDeps,
  actor: Actor,
  orderId: number,
  channel: ResendChannel,
  nonce: string,
): Promise<ResendOutcome> {
  if (!RESEND_NONCE.test(nonce)) {
    throw new ResendRefusedError('stale_form', 'nonce', 'Open the order page again and resend.');
  }
  const order = await Order.query(deps.knex).findOne({ id: orderId, store_id: actor.storeId });
  if (!order) throw new NotFoundError('Order not found');
  if (!isFulfillable(order.status)) {
    throw new ResendRefusedError(
      'not_paid',
      'channel',
      'Only a paid order (In progress or Completed) has a delivery to send.',
    );
  }
  if (channel === 'email' && !order.customer_email) {
    throw new ResendRefusedError('no_email', 'channel', 'The buyer gave no e-mail address.');
  }
  const items = await OrderItem.query(deps.knex).where('order_id', orderId).orderBy('id');
  const list = await deliverables(deps, items);
  if (list.length === 0) {
    throw new ResendRefusedError(
      'nothing_to_send',
      'channel',
      'This order has no keys, licenses or files to send.',
    );
  }
  const key = resendKey(orderId, channel, nonce);
  return unitOfWork(deps, async (uow) => {
    // A double click: the second request waits for the first's commit here, then finds its row.
    await uow.trx.raw('select pg_advisory_xact_lock(hashtext(?))', [key]);
    const earlier = await uow
      .trx('merchant_audit_events')
      .where({ store_id: actor.storeId, action: 'order.delivery_resent', resource_type: 'order' })
      .where('resource_id', orderId)
      .whereRaw("changes->>'key' = ?", [key])
      .first<{ id: number } | undefined>('id');
    if (earlier) return 'duplicate';
    if (channel === 'email') {
      const locale = await orderBuyerLocale(uow.trx, orderId);
      const link = await documentLink(
        deps.knex,
        { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
        orderId,
      );
      await sendEmail(deps, uow, {
        purpose: 'order_delivery',
        key,
        to: order.customer_email!,
        locale,
        template: 'delivery',
        storeId: order.store_id,
        orderId,
        data: deliveryEmailData(order, list, link),
        attachments: link?.kind === 'invoice' ? [{ kind: 'invoice_pdf', orderId }] : [],
      });
    } else {
      uow.stage(
        await stageJob(
          uow.trx,
          'messages',
          { kind: 'delivery_resend', orderId, key },
          { jobId: jobIdOf(orderId, nonce) },
        ),
      );
    }
    await recordAudit(
      uow.trx,
      actor,
      'order.delivery_resent',
      { type: 'order', id: orderId },
      { channel, key },
    );
    return 'queued';
  });
}

/**
 * The `messages` job of a resend by message: the order's goods as they are now, under the resend's key
 * (message_sends: a retried job sends once). Marks nothing: the items were delivered, or the order's own
 * delivery job marks them.
 */
export async function sendDeliveryResend(
  deps: DeliveryDeps,
  orderId: number,
  key: string,
): Promise<DeliveryOutcome> {
  const order = await Order.query(deps.knex).findById(orderId);
  if (!order) throw new NotFoundError(`order ${orderId} does not exist`);
  if (!isFulfillable(order.status)) return 'not-fulfillable';
  const items = await OrderItem.query(deps.knex).where('order_id', orderId).orderBy('id');
  const list = await deliverables(deps, items);
  if (list.length === 0) return 'nothing-to-send';
  const store = await Store.query(deps.knex).findById(order.store_id);
  const locale = await orderBuyerLocale(deps.knex, order.id);
  const link = await documentLink(
    deps.knex,
    { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl },
    order.id,
  );
  const result = await deps.messenger.send({
    to: recipientOf(order),
    body: deliveryMessage(order, store?.name ?? 'Your store', list, link, locale),
    route: 'whatsapp_first',
    purpose: 'order_delivery',
    storeId: order.store_id,
    key,
  });
  return result.duplicate ? 'already-sent' : 'sent';
}
