import { UnrecoverableError } from 'bullmq';
import { NotFoundError } from '../../shared/errors';
import { deliveryJobError } from '../../shared/messaging';
import { sendDeliveryResend, sendOrderDelivery } from '../../shared/services/fulfilment';
import { sendRefundMessage } from '../../shared/services/refunds';
import { sendCheckoutReminder } from '../../shared/services/growth/abandoned';
import { sendClaimMessage } from '../../shared/services/fraud/claims-notify';
import { sendSubscriptionMessage } from '../../shared/services/subscriptions/messages';
import { sendOrderNotice } from '../../shared/services/notices/order-notice';
import type { QueueProcessor } from './types';

/**
 * The `messages` queue: customer notifications other than OTP: the delivery of an order's keys, and the
 * news that a refund succeeded, and a subscription's renewals, failed charges, links and end.
 * A permanent delivery failure fails the job where the dashboard shows it; outages are retried. Message
 * bodies (keys) never reach the log.
 */
export const messagesProcessor: QueueProcessor<'messages'> = {
  concurrency: 10,
  async process(job, deps) {
    try {
      const data = job.data;
      if (data.kind === 'refund') {
        const outcome = await sendRefundMessage(deps, data.refundId);
        deps.logger.info(
          { queue: 'messages', jobId: job.id, refundId: data.refundId, outcome },
          'refund message',
        );
        return outcome;
      }
      if (data.kind === 'checkout_reminder') {
        const outcome = await sendCheckoutReminder(deps, data.reminderId);
        deps.logger.info(
          { queue: 'messages', jobId: job.id, reminderId: data.reminderId, outcome },
          'checkout reminder',
        );
        return outcome;
      }
      if (data.kind === 'key_claim') {
        const outcome = await sendClaimMessage(deps, data.claimId);
        deps.logger.info(
          { queue: 'messages', jobId: job.id, claimId: data.claimId, outcome },
          'key claim message',
        );
        return outcome;
      }
      if (data.kind === 'order_notice') {
        const outcome = await sendOrderNotice(deps, data.orderId);
        deps.logger.info(
          { queue: 'messages', jobId: job.id, orderId: data.orderId, outcome },
          'new order notice',
        );
        return outcome;
      }
      if (data.kind === 'subscription') {
        const outcome = await sendSubscriptionMessage(deps, data);
        deps.logger.info(
          {
            queue: 'messages',
            jobId: job.id,
            subscriptionId: data.subscriptionId,
            event: data.event,
            outcome,
          },
          'subscription message',
        );
        return outcome;
      }
      if (data.kind === 'order_resend') {
        // Queued by the account before its resend became the dashboard's: the same sender, its old key.
        const outcome = await sendDeliveryResend(
          deps,
          data.orderId,
          `order-resend:${data.orderId}:${data.request}`,
        );
        deps.logger.info(
          { queue: 'messages', jobId: job.id, orderId: data.orderId, outcome },
          'order resend',
        );
        return outcome;
      }
      if (data.kind === 'delivery_resend') {
        const outcome = await sendDeliveryResend(deps, data.orderId, data.key);
        deps.logger.info(
          { queue: 'messages', jobId: job.id, orderId: data.orderId, outcome },
          'order delivery sent again',
        );
        return outcome;
      }
      const outcome = await sendOrderDelivery(deps, data.orderId);
      deps.logger.info(
        { queue: 'messages', jobId: job.id, orderId: data.orderId, outcome },
        'order delivery',
      );
      return outcome;
    } catch (err) {
      if (err instanceof NotFoundError) throw new UnrecoverableError(err.message);
      throw deliveryJobError(err);
    }
  },
};
