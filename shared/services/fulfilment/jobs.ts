import type { DomainJobs } from '../../queues/handlers';
import { emitFulfilmentEvents } from '../webhooks/order-events';
import { queueFivemCommands } from './fivem';
import { fulfilOrder } from './fulfil';
import { sendOrderDelivery } from './delivery';
import { sendDeliveryResend } from './resend';

/**
 * The fulfilment domain's queue work: an order event's fulfilment (then the merchant's webhooks of what
 * it did), the order's FiveM commands, and the delivery message of an order's goods, first or again.
 */
export const fulfilmentJobs = {
  fulfilment: {
    async job(deps, data) {
      const result = await fulfilOrder(deps, data.orderId, data.event);
      await emitFulfilmentEvents(deps, data.orderId);
      return result;
    },
  },
  fivem: { job: (deps, data) => queueFivemCommands(deps.knex, data.orderId) },
  messages: {
    order_delivery: (deps, data) => sendOrderDelivery(deps, data.orderId),
    delivery_resend: (deps, data) => sendDeliveryResend(deps, data.orderId, data.key),
    // Queued by the account before its resend became the dashboard's: the same sender, its old key.
    order_resend: (deps, data) =>
      sendDeliveryResend(deps, data.orderId, `order-resend:${data.orderId}:${data.request}`),
  },
} satisfies DomainJobs;
