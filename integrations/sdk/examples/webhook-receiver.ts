/**
 * A merchant webhook receiver through the packed SDK: `verifyWebhook()` checks the signature over the raw
 * body and answers the event, whose `type` narrows `data`. test/integration/sdk-package.test.ts compiles
 * it in the scratch project beside purchase.ts and runs it on a delivery the platform's own signing code
 * signed (WEBHOOK_SECRET, WEBHOOK_BODY, WEBHOOK_SIGNATURE), printing what it understood.
 */
import { verifyWebhook, type WebhookEvent } from '@matjar/sdk';

/** One line about the event; each case sees only its own event's fields. */
export function describe(event: WebhookEvent): string {
  switch (event.type) {
    case 'order.paid':
      return `order ${event.data.order_id} paid ${event.data.total} ${event.data.currency}`;
    case 'refund.succeeded':
      return `refund ${event.data.id} of order ${event.data.order_id}: ${event.data.amount}`;
    case 'subscription.payment_failed':
      return `subscription ${event.data.subscription_id} charge ${event.data.attempt} declined`;
    default:
      return event.type;
  }
}

export function receive(body: string, signature: string | null, secret: string): string {
  const event = verifyWebhook({ body, signature, secret });
  return event ? describe(event) : 'refused';
}

const { WEBHOOK_SECRET, WEBHOOK_BODY, WEBHOOK_SIGNATURE } = process.env;
if (WEBHOOK_SECRET && WEBHOOK_BODY) {
  process.stdout.write(`${receive(WEBHOOK_BODY, WEBHOOK_SIGNATURE ?? null, WEBHOOK_SECRET)}\n`);
}
