import type { MerchantEventType } from '../../shared/services/webhooks/events';
import { SAMPLE_DATA } from '../../shared/services/webhooks/test-event';
import { object, schemaRef } from './component-helpers';
import type { OperationObject, SchemaObject } from './types';

/**
 * The merchant webhook events (docs/merchant.md, "Webhooks to merchants"; docs/webhooks.md), declared once:
 * the document's `webhooks` section and its `<Name>Event` schemas are made from this table, and the SDK's
 * `WebhookEvent` union from those. It is keyed by MerchantEventType, so an event the platform can send
 * without a declaration here does not compile. `data` lists what every emitter of the event writes;
 * objects are open (a field may be added, never removed).
 */

const id = (description: string): SchemaObject => ({ type: 'integer', description });
const nullableId = (description: string): SchemaObject => ({ type: ['integer', 'null'], description });
const decimal = (description: string): SchemaObject => ({
  type: 'string',
  pattern: '^-?\\d+(\\.\\d+)?$',
  description,
});
const ORDER_STATUS: SchemaObject = {
  type: 'integer',
  enum: [1, 2, 3, 4, 5, 6],
  description: 'Order status code (1 awaiting payment ... 6 refunded).',
};
const SUBSCRIPTION_STATUS: SchemaObject = {
  type: 'string',
  enum: ['active', 'past_due', 'cancelled', 'expired'],
};

const orderSummary = object({
  order_id: id('The order, as GET /shawarma/orders/{id} names it.'),
  status: ORDER_STATUS,
  total: decimal('What the order cost, in major units.'),
  currency: { type: 'string', description: 'ISO 4217 code.' },
  source: { type: 'string', enum: ['embed', 'storefront', 'merchant', 'renewal'] },
});

/** What subscriptionEvent() writes (shared/services/fulfilment/subscription-lifecycle.ts), then the event's own fields. */
const subscription = (
  extra: Record<string, SchemaObject> = {},
  optional: readonly string[] = [],
): SchemaObject =>
  object(
    {
      subscription_id: id('The subscription.'),
      status: SUBSCRIPTION_STATUS,
      product_id: id('The product subscribed to.'),
      plan_id: id('The plan of the current period.'),
      customer_id: nullableId('The buyer, when signed in.'),
      order_id: nullableId('The order that started the subscription.'),
      ...extra,
    },
    optional,
  );

const refund = object(
  {
    id: id('The refund.'),
    order_id: id('The refunded order.'),
    amount: decimal('The amount refunded, in major units.'),
    currency: { type: 'string', description: 'ISO 4217 code.' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    state: {
      type: 'string',
      enum: ['requested', 'sent', 'succeeded', 'failed'],
      description:
        'The refund’s own state (docs/merchant.md, "Refunds"); `status` is `pending` for the first two.',
    },
    kind: { type: 'string', enum: ['provider', 'manual'] },
    provider: { type: ['string', 'null'] },
    reason: { type: ['string', 'null'] },
    failure_reason: { type: ['string', 'null'], description: 'Why the provider refused it.' },
    created_at: { type: 'string', format: 'date-time' },
  },
  ['provider', 'state', 'reason', 'failure_reason', 'created_at'],
);

export interface WebhookEventDeclaration {
  /** The schema name of the whole delivery body: `OrderPaidEvent`. */
  schema: string;
  summary: string;
  description: string;
  data: SchemaObject;
}

export const WEBHOOK_EVENTS: Readonly<Record<MerchantEventType, WebhookEventDeclaration>> = {
  'order.created': {
    schema: 'OrderCreatedEvent',
    summary: 'An order was created',
    description: 'Its first fulfilment job ran: a free order, a paid order or a confirmed manual payment.',
    data: orderSummary,
  },
  'order.paid': {
    schema: 'OrderPaidEvent',
    summary: 'An order was paid',
    description: 'A provider payment, or the merchant confirmed a manual payment.',
    data: orderSummary,
  },
  'order.status_changed': {
    schema: 'OrderStatusChangedEvent',
    summary: 'An order’s status changed',
    description:
      'The merchant changed it, a payment provider confirmed the payment (`reason` payment_confirmed), ' +
      'fulfilment completed it (fulfilled), or an unpaid manual payment passed its deadline ' +
      '(manual_payment_deadline).',
    data: object(
      {
        order_id: id('The order.'),
        from: ORDER_STATUS,
        to: ORDER_STATUS,
        status_label: { type: 'string', description: 'The new status, in English.' },
        reason: { type: 'string', examples: ['manual_payment_deadline'] },
      },
      ['reason'],
    ),
  },
  'order.disputed': {
    schema: 'OrderDisputedEvent',
    summary: 'A paid order was disputed',
    description:
      'The card holder disputed the payment with the provider (a chargeback; docs/fraud.md): the order is ' +
      'marked `disputed`, its licenses revoked, undelivered goods withheld (an order not yet Completed is ' +
      'Cancelled) and the buyer’s phone and e-mail blocked in the store. `deadline`: when the provider wants ' +
      'the merchant’s evidence (null when it gives none). Sent once per order.',
    data: object({
      order_id: id('The order.'),
      dispute_id: { type: 'string', description: 'The provider’s dispute id.' },
      reason: { type: ['string', 'null'] },
      amount: { type: 'string', description: 'The amount disputed, a decimal string.' },
      currency: { type: 'string' },
      deadline: { type: ['string', 'null'], format: 'date-time' },
      licenses_revoked: { type: 'integer' },
    }),
  },
  'license.revoked': {
    schema: 'LicenseRevokedEvent',
    summary: 'A license was revoked',
    description: 'By a cancellation or a refund of its order.',
    data: object({
      license_id: id('The license.'),
      key: { type: 'string' },
      product_id: id('Its product.'),
      order_id: id('The order it came with.'),
      previous_status: { type: 'string', enum: ['generated', 'active', 'expired', 'suspended', 'revoked'] },
    }),
  },
  'subscription.created': {
    schema: 'SubscriptionCreatedEvent',
    summary: 'A subscription started',
    description: 'Fulfilment of its first order started it.',
    data: object({
      subscription_id: id('The subscription.'),
      product_id: id('The product subscribed to.'),
      plan_id: id('Its plan.'),
      order_id: id('The order that started it.'),
    }),
  },
  'subscription.cancelled': {
    schema: 'SubscriptionCancelledEvent',
    summary: 'A subscription was cancelled',
    description: 'A cancellation or a refund of its order ended it.',
    data: subscription({}, ['status']),
  },
  'subscription.renewed': {
    schema: 'SubscriptionRenewedEvent',
    summary: 'A subscription period was paid',
    description: 'With the saved card or the buyer’s renewal link.',
    data: subscription({
      renewal_order_id: id('The renewal’s order.'),
      current_period_end: { type: ['string', 'null'], format: 'date-time' },
    }),
  },
  'subscription.payment_failed': {
    schema: 'SubscriptionPaymentFailedEvent',
    summary: 'A renewal charge was declined',
    description: 'The subscription is now `past_due`; dunning tries again.',
    data: subscription({ attempt: { type: 'integer' }, reason: { type: 'string' } }),
  },
  'subscription.renewal_link_sent': {
    schema: 'SubscriptionRenewalLinkSentEvent',
    summary: 'A renewal link was sent',
    description: 'The buyer has no saved card and was sent the link to pay the next period.',
    data: subscription(),
  },
  'subscription.updated': {
    schema: 'SubscriptionUpdatedEvent',
    summary: 'A subscription was changed',
    description: 'Set to cancel at the period’s end, or a plan change for the next period.',
    data: subscription(
      {
        cancel_at_period_end: { type: 'boolean' },
        current_period_end: { type: 'string', format: 'date-time' },
        next_plan_id: nullableId('The plan of the next period.'),
      },
      ['cancel_at_period_end', 'current_period_end', 'next_plan_id'],
    ),
  },
  'subscription.expired': {
    schema: 'SubscriptionExpiredEvent',
    summary: 'A subscription expired',
    description: 'The last dunning try failed, or the renewal link was never paid.',
    data: subscription(),
  },
  'refund.created': {
    schema: 'RefundCreatedEvent',
    summary: 'A refund was asked for',
    description: 'Through the Merchant API, or by the status change to Refunded.',
    data: refund,
  },
  'refund.succeeded': {
    schema: 'RefundSucceededEvent',
    summary: 'A refund went through',
    description: 'The provider refunded it, or a manual refund was recorded.',
    data: refund,
  },
  'refund.failed': {
    schema: 'RefundFailedEvent',
    summary: 'A refund was refused',
    description: 'The provider refused it (`failure_reason`).',
    data: refund,
  },
  'checkout.recovered': {
    schema: 'CheckoutRecoveredEvent',
    summary: 'A reminded checkout was paid',
    description:
      'An abandoned checkout whose reminder went out was paid: itself, or the checkout its resume address ' +
      'rebuilt (docs/growth.md, "Abandoned checkouts").',
    data: object({
      checkout_id: id('The checkout that was paid.'),
      reminder_id: id('The reminder that brought it back.'),
      order_id: id('The order it became.'),
      total: decimal('What the order paid, in major units.'),
      currency: { type: 'string', description: 'ISO 4217 code.' },
    }),
  },
  'creator.commission': {
    schema: 'CreatorCommissionEvent',
    summary: 'A creator’s commission moved',
    description:
      '`earned` when an order crediting a creator is paid; `reversed` when a refund takes its share back ' +
      '(in proportion, `refund_id` set) or a dispute takes back what is left (docs/growth.md, "Creator codes"). ' +
      'Reversed amounts are negative.',
    data: object({
      creator_id: id('The creator.'),
      code: { type: 'string', description: 'The creator’s code.' },
      order_id: id('The order.'),
      kind: { type: 'string', enum: ['earned', 'reversed'] },
      refund_id: nullableId('The refund that took it back, for a reversal by refund.'),
      revenue: decimal('The revenue it adds (negative for a reversal), in major units.'),
      commission: decimal('The commission it adds (negative for a reversal), in major units.'),
      currency: { type: 'string', description: 'ISO 4217 code.' },
    }),
  },
};

/** The delivery body of one event: `{id, type, created_at, store_id, data}` (shared/services/webhooks). */
function eventSchema(type: MerchantEventType, event: WebhookEventDeclaration): SchemaObject {
  return {
    ...object(
      {
        id: {
          type: 'string',
          description:
            'The event, the same on every retry (X-Webhook-Id): drop a second delivery of it. A test event’s begins `test_`.',
        },
        type: { const: type },
        created_at: { type: 'string', format: 'date-time' },
        store_id: id('The store the event is about.'),
        test: { type: 'boolean', description: 'Present (true) on a test event only.' },
        data: event.data,
      },
      ['test'],
    ),
    description: `${event.summary}: ${event.description}`,
  };
}

/** The `<Name>Event` schemas, for components.schemas. */
export const webhookEventSchemas = (): Record<string, SchemaObject> =>
  Object.fromEntries(
    (Object.entries(WEBHOOK_EVENTS) as [MerchantEventType, WebhookEventDeclaration][]).map(
      ([type, event]) => [event.schema, eventSchema(type, event)],
    ),
  );

/** The document's `webhooks` section: what a store's endpoint receives, one POST per event type. */
export function webhooksSection(tag: string): Record<string, { post: OperationObject }> {
  return Object.fromEntries(
    (Object.entries(WEBHOOK_EVENTS) as [MerchantEventType, WebhookEventDeclaration][]).map(
      ([type, event]) => [
        type,
        {
          post: {
            tags: [tag],
            summary: event.summary,
            description:
              `${event.description}\n\nSent to every endpoint of the store subscribed to \`${type}\` or ` +
              `\`${type.split('.')[0]}.*\`. Verify \`X-Signature\` (\`t=<unix seconds>,v1=<hex HMAC-SHA256 of ` +
              '"<t>.<raw body>">` under the endpoint’s secret) on the raw body before parsing it; see docs/webhooks.md.',
            operationId: `webhook${type
              .split(/[._]/)
              .map((w) => w[0]!.toUpperCase() + w.slice(1))
              .join('')}`,
            security: [],
            parameters: [
              {
                name: 'X-Signature',
                in: 'header',
                required: true,
                description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`.',
                schema: { type: 'string' },
              },
              {
                name: 'X-Webhook-Id',
                in: 'header',
                required: true,
                description: 'The event id, the same on every retry.',
                schema: { type: 'string' },
              },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: schemaRef(event.schema),
                  // The sample a test event carries (POST /shawarma/webhooks/{id}/test), as a real delivery.
                  example: {
                    id: `${type}:1001`,
                    type,
                    created_at: '2026-11-27T12:00:00.000Z',
                    store_id: 7,
                    data: SAMPLE_DATA[type],
                  },
                },
              },
            },
            responses: {
              '200': { description: 'Any 2xx within 10 s delivers the event.' },
              '400': {
                description: 'Anything else (or no answer) is retried with back-off for about a day.',
              },
            },
          },
        },
      ],
    ),
  );
}
