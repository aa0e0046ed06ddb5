import { object, type SchemaObject } from '../../json-schema';

/**
 * A refund as the Merchant API and the merchant webhook events show it, declared once: the OpenAPI
 * document's answer (api/merchant/refunds/routes.ts) and the type of refundView() (`RefundView`,
 * `Infer<typeof refundSchema>`) are this schema.
 */

const str = { type: 'string' } as const satisfies SchemaObject;
const nstr = { type: ['string', 'null'] } as const satisfies SchemaObject;
const int = { type: 'integer' } as const satisfies SchemaObject;
/** The currency's own decimals (ISO 4217): "10.50" SAR, "1.250" KWD, "10" JPY. */
const money = {
  type: 'string',
  pattern: '^\\d+(\\.\\d{2,3})?$',
  description: 'Decimal string with the currency’s decimals.',
} as const satisfies SchemaObject;
const ntime = { type: ['string', 'null'], format: 'date-time' } as const satisfies SchemaObject;

export const refundSchema = object({
  id: int,
  order_id: int,
  amount: money,
  currency: str,
  status: {
    type: 'string',
    enum: ['pending', 'succeeded', 'failed'],
    description:
      '`pending`: the provider has not answered yet (retried while it is out of reach); `succeeded`: ' +
      'the money is on its way back (a manual refund: recorded); `failed`: the provider refused it, and ' +
      'its amount may be refunded again. `state` says where a pending refund is.',
  },
  state: {
    type: 'string',
    enum: ['requested', 'sent', 'succeeded', 'failed'],
    description:
      'The refund’s own state machine: `requested` (recorded, the provider not asked yet), `sent` (asked, ' +
      'no final answer yet: retried while the provider is out of reach), `succeeded` (the goods are taken ' +
      'back now when `withdraw_goods`), `failed` (declined: the order and its goods are as they were). ' +
      '`status` is `pending` for the first two.',
  },
  kind: {
    type: 'string',
    enum: ['provider', 'manual'],
    description: '`provider`: sent to the provider that took the payment; `manual`: you return the money.',
  },
  provider: str,
  reason: nstr,
  note: nstr,
  withdraw_goods: { type: 'boolean' },
  provider_refund_id: nstr,
  provider_status: nstr,
  failure_reason: nstr,
  attempts: { type: 'integer', description: 'Times the worker has tried to send it to the provider.' },
  created_at: { type: 'string', format: 'date-time' },
  succeeded_at: ntime,
  failed_at: ntime,
});

/** The money of an order's payment: paid, refunded (succeeded), pending, and what may still be refunded. */
export const refundSummarySchema = object({
  currency: str,
  paid: money,
  refunded: money,
  pending: money,
  refundable: money,
});
