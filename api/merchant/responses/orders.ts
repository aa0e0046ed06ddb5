import { bool, int, money, nint, nmoney, nstr, ntime, obj, status, str, time } from './scalars';

/** Orders, their status changes and the store's statistics. */
const customer = obj({
  id: nint,
  first_name: str,
  last_name: str,
  email: str,
  country_code: str,
  phone: str,
});

export const OrderSummary = obj({
  id: int,
  number: {
    ...int,
    description:
      'The order’s number in its store, counting from 1 (shown to the merchant and the buyer as #number); `id` is the platform-wide id.',
  },
  status,
  status_label: str,
  total: money,
  currency: str,
  payment_method: nstr,
  source: str,
  customer,
  items: { type: 'array', items: obj({ product_id: nint, name: str, quantity: int }) },
  created_at: time,
});

export const OrderDetail = obj({
  id: int,
  disputed: { type: 'boolean', description: 'The payment was disputed with the provider (a chargeback).' },
  dispute: {
    type: ['object', 'null'],
    description:
      'The dispute: the provider’s id, reason, amount and the deadline for the merchant’s evidence.',
    properties: { id: str, reason: nstr, amount: money, deadline: ntime, created_at: time },
  },
  risk: {
    type: ['object', 'null'],
    description:
      'The fraud controls’ risk score (0-100) and its reasons, judged when the payment was confirmed; `held`: ' +
      'the order waited in Under review (docs/fraud.md).',
    properties: {
      score: int,
      held: bool,
      reasons: { type: 'array', items: obj({ code: str, detail: str, points: int }) },
    },
  },
  number: {
    ...int,
    description:
      'The order’s number in its store, counting from 1 (shown to the merchant and the buyer as #number); `id` is the platform-wide id.',
  },
  invoice_url: { type: ['string', 'null'], description: 'The buyer’s invoice (or receipt) page once paid.' },
  emails: {
    type: 'array',
    description:
      'The e-mails sent to the buyer about the order (docs/email.md): `status` queued, sending, sent, ' +
      '`bounced` (the buyer’s mail server refused the address for good; `error` holds its answer) or failed.',
    items: obj({
      purpose: str,
      to: str,
      status: { type: 'string', enum: ['queued', 'sending', 'sent', 'bounced', 'failed'] },
      error: nstr,
      created_at: time,
      sent_at: ntime,
    }),
  },
  status,
  status_label: str,
  subtotal: money,
  discount: money,
  tax: money,
  total: money,
  currency: str,
  source: str,
  customer_note: nstr,
  customer,
  payment: {
    type: ['object', 'null'],
    properties: {
      method: nstr,
      provider: nstr,
      status: nstr,
      amount: nmoney,
      currency: nstr,
      paid_at: ntime,
    },
  },
  coupon: { type: ['object', 'null'], properties: { id: int, code: str, type: str, discount: money } },
  refunds: {
    ...obj({ currency: str, paid: money, refunded: money, pending: money, refundable: money }),
    description:
      'The money of the order’s payment: what was paid, refunded, being refunded, and still refundable.',
  },
  items: {
    type: 'array',
    items: obj({
      id: int,
      product_id: nint,
      plan_id: nint,
      name: str,
      type: str,
      quantity: int,
      unit_price: money,
      total: money,
      delivered_at: ntime,
      fields: {
        type: 'array',
        items: obj({
          index: int,
          label: nstr,
          type: nstr,
          value: {},
          file: {
            type: ['object', 'null'],
            properties: {
              name: str,
              mime_type: str,
              size_bytes: int,
              url: { type: 'string', format: 'uri' },
            },
          },
        }),
      },
      codes: { type: 'array', items: str },
    }),
  },
  licenses: {
    type: 'array',
    items: obj({
      id: int,
      key: str,
      status: { type: 'string', enum: ['generated', 'active', 'expired', 'suspended', 'revoked'] },
      product_id: int,
      plan_id: nint,
      order_item_id: nint,
      lock_type: str,
      max_activations: int,
      starts_at: ntime,
      expires_at: ntime,
    }),
  },
  fivem_commands: {
    type: 'array',
    items: obj({
      id: int,
      command: str,
      player_id: nstr,
      kind: { type: 'string', enum: ['purchase', 'refund', 'renewal', 'expiry'] },
      require_online: bool,
      status: { type: 'string', enum: ['pending', 'executed', 'withdrawn', 'expired', 'failed'] },
      leased: bool,
      executed_at: ntime,
      withdrawn_at: ntime,
      created_at: time,
    }),
  },
  subscription_id: {
    ...nint,
    description: 'The subscription this order started or renewed (the first, when it started several).',
  },
  subscriptions: {
    type: 'array',
    items: obj({
      id: int,
      status: str,
      product_id: int,
      plan_id: int,
      current_period_start: time,
      current_period_end: ntime,
      cancelled_at: ntime,
    }),
  },
  history: { type: 'array', items: obj({ from: status, to: status, source: str, at: time }) },
  created_at: time,
  updated_at: time,
  completed_at: ntime,
  cancelled_at: ntime,
  refunded_at: ntime,
});

export const CreatedOrder = obj({
  type: { type: 'string', enum: ['free_order', 'payment_required'] },
  order_id: nint,
  checkout_id: nint,
  checkout_url: str,
  payment_url: { type: ['string', 'null'], format: 'uri' },
  amount: money,
  subtotal: money,
  discount_amount: money,
  tax_amount: money,
  currency: str,
});

export const StatusChange = obj(
  {
    id: int,
    status,
    status_label: str,
    previous_status: status,
    changed: bool,
    licenses_revoked: int,
    licenses_activated: int,
    refund_id: {
      ...int,
      description: 'The refund a move to Refunded made (GET /shawarma/orders/{id}/refunds).',
    },
  },
  ['refund_id'],
);

const window = obj({ amount: money, orders: int });
export const Statistics = obj({
  currency: str,
  sales: obj({ today: window, last_7_days: window, last_30_days: window, all_time: window }),
  orders_by_status: obj({ 1: int, 2: int, 3: int, 4: int, 5: int, 6: int }),
  top_products: { type: 'array', items: obj({ product_id: int, name: str, quantity: int, revenue: money }) },
  new_customers: obj({ today: int, last_7_days: int, last_30_days: int, all_time: int }),
  traffic: obj({
    visitors_30_days: int,
    page_views_30_days: int,
    days: {
      type: 'array',
      items: obj({ date: { type: 'string', format: 'date' }, visitors: int, page_views: int }),
    },
  }),
  generated_at: time,
});
