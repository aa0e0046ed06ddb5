import { pageMetaSchema } from '../../../shared/views';
import { ref, schemaRef } from '../../openapi/components';
import { object } from '../../openapi/component-helpers';
import type { ResponseObject, SchemaObject } from '../../openapi/types';
import type { PublicErrorCode } from '../../../shared/error-codes';
import type { Infer } from '../../../shared/json-schema';
import type { TypedResponse } from '../../http/route';

/** Answers of the Merchant API: the envelope around each resource, and the resources' shapes. */

/** The Merchant envelope around `data`; the route's handler must return what `data` describes. */
export function merchantOk<const S extends SchemaObject>(
  description: string,
  data: S,
  example?: unknown,
): TypedResponse<Infer<S>> {
  const schema: SchemaObject = {
    allOf: [schemaRef('MerchantSuccess'), { type: 'object', required: ['data'], properties: { data } }],
  };
  return {
    description,
    content: { 'application/json': example === undefined ? { schema } : { schema, example } },
  };
}

/** The answer of an `Idempotency-Key` replay: it says so in `Idempotent-Replayed`. */
export const replayed = <T extends ResponseObject>(response: T): T => ({
  ...response,
  headers: { ...response.headers, 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') },
});

/** A Merchant error answer: its example code (docs/errors.md), its own description and an example message. */
export const merchantRefused = (
  errorCode: PublicErrorCode,
  description: string,
  message: string,
): ResponseObject => ({
  description,
  content: {
    'application/json': {
      schema: schemaRef('MerchantError'),
      example: {
        message,
        data: null,
        api: 'merchant',
        timestamp: 1795000000,
        error: true,
        error_code: errorCode,
      },
    },
  },
});

const str: SchemaObject = { type: 'string' };
const nstr: SchemaObject = { type: ['string', 'null'] };
const int: SchemaObject = { type: 'integer' };
const nint: SchemaObject = { type: ['integer', 'null'] };
const bool: SchemaObject = { type: 'boolean' };
const money: SchemaObject = {
  type: 'string',
  pattern: '^-?\\d+(\\.\\d{2,3})?$',
  description:
    'Decimal string with the currency’s own decimals (ISO 4217: 2 for SAR, 3 for KWD, none for JPY).',
};
const nmoney: SchemaObject = { type: ['string', 'null'], pattern: '^-?\\d+(\\.\\d{2,3})?$' };
const time: SchemaObject = { type: 'string', format: 'date-time' };
const ntime: SchemaObject = { type: ['string', 'null'], format: 'date-time' };
const status: SchemaObject = { type: 'integer', minimum: 1, maximum: 6, description: 'Order status code.' };

/** The document's one object shorthand (api/openapi/component-helpers.ts): every property required unless named optional. */
export const obj = object;

/** A page: rows in `data`, totals in `meta`, and the Laravel paginator fields. */
export function pageOf(item: SchemaObject): SchemaObject {
  return obj({
    data: { type: 'array', items: item },
    meta: pageMetaSchema,
    current_page: int,
    per_page: int,
    total: int,
    last_page: int,
  });
}

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

const category = obj({ id: int, name: str, slug: str });
export const ProductSummary = obj({
  id: int,
  name: str,
  name_ar: { type: ['string', 'null'], description: 'The Arabic name, shown to Arabic readers.' },
  slug: str,
  type: { type: 'string', enum: ['product', 'code', 'service', 'subscription'] },
  active: bool,
  price: obj({ original: money, actual: money, currency: str }),
  stock: obj({ unlimited: bool, quantity: nint, is_in_stock: bool }),
  sales_count: int,
  categories: { type: 'array', items: category },
  image_url: nstr,
  created_at: time,
});

export const ProductDetail: SchemaObject = {
  allOf: [
    ProductSummary,
    obj({
      description: nstr,
      description_ar: nstr,
      max_per_order: { type: 'integer', minimum: 1, description: 'Most units one checkout line may take.' },
      download_limit: {
        type: 'integer',
        minimum: 0,
        description: 'Downloads allowed per file and order item (0: no limit; docs/downloads.md).',
      },
      keys_left: nint,
      fields: {
        type: 'array',
        items: obj({
          index: int,
          type: str,
          label: str,
          label_ar: nstr,
          required: bool,
          options: {
            type: 'array',
            items: obj({ index: int, label: str, label_ar: nstr, price: money }),
          },
        }),
      },
      plans: { type: 'array', items: obj({ id: int, name: str, price: money, duration: str, active: bool }) },
      license: obj({
        enabled: bool,
        prefix: nstr,
        lock_type: nstr,
        max_activations: nint,
        encrypt: bool,
        encryption_key: {
          type: ['string', 'null'],
          description: 'Base64 AES-256-GCM key when encrypt is on.',
        },
      }),
      fivem_commands: {
        type: 'array',
        items: obj({
          id: int,
          command: str,
          require_online: bool,
          run_on: { type: 'string', enum: ['purchase', 'refund'] },
          delay_seconds: int,
          inventory_slots: nint,
        }),
      },
      codes: {
        type: 'object',
        description: 'The product’s keys by state; the keys themselves are listed by the codes route.',
        required: ['available', 'reserved', 'sold'],
        properties: { available: int, reserved: int, sold: int },
      },
      version: {
        type: 'integer',
        description: 'Moves on every write; send it as `If-Match` to update safely.',
      },
      archived_at: { ...ntime, description: 'When DELETE took the product off sale.' },
      updated_at: time,
    }),
  ],
};

export const CategorySummary = obj({
  id: int,
  name: str,
  name_ar: nstr,
  description: nstr,
  description_ar: nstr,
  slug: str,
  position: int,
  product_count: int,
  created_at: time,
});

export const SubscriptionSummary = obj({
  id: int,
  status: { type: 'string', enum: ['active', 'past_due', 'cancelled', 'expired'] },
  customer: obj({
    id: nint,
    first_name: nstr,
    last_name: nstr,
    email: nstr,
    country_code: nstr,
    phone: nstr,
  }),
  product: obj({ id: int, name: nstr }),
  plan: obj({ id: int, name: nstr, duration: nstr, price: nmoney }),
  order_id: nint,
  current_period: obj({ start: time, end: ntime }),
  current_period_end: ntime,
  cancel_at_period_end: bool,
  next_plan_id: { ...nint, description: 'A plan change waiting for a renewal (see `next_price`).' },
  price: {
    ...nmoney,
    description:
      'The unit price the subscriber agreed to: what renewals charge (the plan’s price may differ).',
  },
  currency: nstr,
  next_price: {
    ...obj({ price: money, applies_from: ntime, accepted_at: ntime }),
    type: ['object', 'null'],
    description:
      'A new unit price waiting: charged from the first renewal at or after `applies_from` (a rise is ' +
      'announced to the buyer 7 days ahead; a drop waits for nothing). `accepted_at`: when the buyer ' +
      'accepted the announced rise from their account, else null.',
  },
  payment_method: nstr,
  renews_by: {
    type: 'string',
    enum: ['saved_card', 'payment_link', 'none'],
    description: 'How the next period is paid: the saved card, a link sent to the buyer, or not at all.',
  },
  past_due_since: ntime,
  ended_at: ntime,
  cancelled_at: ntime,
  created_at: time,
});

export const SubscriptionDetail: SchemaObject = {
  allOf: [
    SubscriptionSummary,
    obj({
      renewals: {
        type: 'array',
        items: obj({
          id: int,
          order_id: nint,
          period_start: time,
          status: { type: 'string', enum: ['pending', 'charging', 'paid', 'failed', 'link_sent'] },
          attempts: int,
          next_attempt_at: ntime,
          total: nmoney,
          created_at: time,
        }),
      },
    }),
  ],
};

const endpointProps: Record<string, SchemaObject> = {
  id: int,
  url: { type: 'string', format: 'uri' },
  events: { type: 'array', items: str },
  description: nstr,
  created_at: time,
  deliveries: obj({ pending: int, delivered: int, failed: int }),
};
export const WebhookEndpoint = obj(endpointProps);
export const CreatedWebhookEndpoint = obj({
  ...endpointProps,
  secret: { type: 'string', description: 'The signing secret, shown this once.' },
});

export const WebhookTestSent = obj({ delivery_id: int, event_id: str, type: str });
export const WebhookDelivery = obj({
  id: int,
  event_id: str,
  event_type: str,
  test: bool,
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  attempts: int,
  response_status: nint,
  failure_reason: {
    type: ['string', 'null'],
    enum: ['refused_address', 'http_status', 'timeout', 'connection_error', null],
  },
  last_error: nstr,
  created_at: time,
  delivered_at: ntime,
});

export const ProductArchived = obj({ id: int, archived_at: time });

export const CodesAdded = obj({
  added: int,
  skipped: int,
  skipped_codes: { type: 'array', items: str },
  available: int,
});

export const CodesWithdrawn = obj({ withdrawn: int, not_withdrawn: int, available: int });

const codeCountsSchema = obj({ available: int, reserved: int, sold: int });
export const CodeList: SchemaObject = {
  allOf: [pageOf(obj({ id: int, code: str, created_at: time })), obj({ counts: codeCountsSchema })],
};

export const Coupon = obj({
  id: int,
  code: str,
  type: { type: 'string', enum: ['percentage', 'fixed'] },
  amount: { ...money, description: 'Percent for a percentage coupon, money for a fixed one.' },
  active: bool,
  max_uses: nint,
  uses: { type: 'integer', description: 'Paid orders that used it.' },
  reserved_uses: { type: 'integer', description: 'Uses held by checkouts not yet paid.' },
  min_order: nmoney,
  products: { type: 'array', items: int },
  payment_restrictions: { type: 'array', items: str },
  starts_at: ntime,
  expires_at: ntime,
  created_at: time,
  updated_at: time,
});

export const CouponDeleted = obj({ id: int, deleted: bool, active: bool });

/** The DNS TXT record that proves a store holds a domain (docs/merchant.md, "Store domains"). */
const PendingDomain = obj({
  domain: str,
  txt_name: { type: 'string', description: 'The TXT record’s name: `_matjar-verify.` and the domain.' },
  txt_value: { type: 'string', description: 'The value the record must hold, exactly.' },
});

export const DomainState = obj({
  domain: str,
  status: { type: 'string', enum: ['verified', 'pending'] },
  txt_name: str,
  txt_value: str,
  verified_at: { type: ['string', 'null'], format: 'date-time' },
  checked_at: {
    type: ['string', 'null'],
    format: 'date-time',
    description: 'When the TXT record was last looked up.',
  },
});

export const StoreSettings = obj({
  id: int,
  name: str,
  slug: { type: 'string', description: 'The store page’s address: `/s/{slug}` (docs/store-pages.md).' },
  description: nstr,
  logo_url: nstr,
  accent_color: nstr,
  policies: nstr,
  currency: str,
  locale: { type: 'string', enum: ['ar', 'en'] },
  support_email: {
    type: ['string', 'null'],
    description: 'The Reply-To of the store’s e-mails to buyers; null: none.',
  },
  plan: { type: 'string', enum: ['paid', 'free'] },
  embed_key: str,
  allowed_origins: { type: 'array', items: str },
  domains: {
    type: 'array',
    items: str,
    description: 'Verified domains: they pick the store on the Storefront.',
  },
  pending_domains: {
    type: 'array',
    items: PendingDomain,
    description: 'Domains added and not yet proven: each picks no store until its TXT record holds.',
  },
  blocked_phones: { type: 'array', items: obj({ country_code: str, phone: str, reason: nstr }) },
  payment_methods: {
    type: 'array',
    items: obj({
      method: str,
      provider: str,
      active: bool,
      min_amount: nmoney,
      max_amount: nmoney,
      settings: { type: 'object', description: 'What buyers see: PayPal address or link, bank details.' },
      credentials: {
        type: 'object',
        additionalProperties: { type: 'string', enum: ['set'] },
        description: 'Each credential configured, as "set"; values are never shown.',
      },
    }),
  },
  tax: obj({ mode: { type: 'string', enum: ['none', 'inclusive', 'exclusive'] }, rate: money }),
  settings: obj({
    abandoned_checkout_minutes: {
      type: 'integer',
      description: 'Minutes an unpaid checkout waits for its one reminder (docs/growth.md); 0: off.',
    },
    abandoned_checkout_coupon: { type: ['string', 'null'], description: 'The coupon the reminder names.' },
    blocked_emails: {
      type: 'array',
      items: str,
      description: 'Addresses and `@domain` entries refused at checkout.',
    },
    blocked_ips: {
      type: 'array',
      items: str,
      description: 'Client addresses and CIDR ranges refused at checkout.',
    },
    max_orders_per_buyer_per_day: { type: ['integer', 'null'] },
    max_units_per_product_per_day: { type: ['integer', 'null'] },
    new_buyer_daily_limit: nmoney,
    review_above: nmoney,
    review_buyers_per_ip_per_hour: { type: ['integer', 'null'] },
  }),
  created_at: time,
});

export const EmbedKeyRotated = obj({ embed_key: str, previous_key_last4: str });

const tokenProps: Record<string, SchemaObject> = {
  id: int,
  store_id: int,
  name: str,
  scope: { type: 'string', enum: ['read', 'write'] },
  last4: { type: ['string', 'null'], description: 'The last four characters, to tell tokens apart.' },
  created_at: time,
  last_used_at: ntime,
  revoked_at: ntime,
};
export const MerchantTokenInfo = obj(tokenProps);
export const CreatedMerchantToken = obj({
  ...tokenProps,
  token: { type: 'string', description: 'The token, shown this once.' },
});

const fivemProps: Record<string, SchemaObject> = {
  id: int,
  name: str,
  last4: nstr,
  last_seen_at: ntime,
  revoked_at: ntime,
  created_at: time,
};
export const FivemServerInfo = obj(fivemProps);
export const CreatedFivemServer = obj({
  ...fivemProps,
  secret: { type: 'string', description: 'The X-FiveM-Secret of this game server, shown this once.' },
});

export const AuditEvent = obj({
  id: int,
  action: str,
  resource: obj({ type: str, id: nint }),
  actor: str,
  token: { type: ['object', 'null'], properties: { id: int, name: str, last4: nstr } },
  changes: { type: 'object', description: '`{key: {from, to}}`; secrets as "set".' },
  created_at: time,
});

export const CategoryDetail = CategorySummary;

export const ProductImage = obj({ id: int, image_url: { type: 'string', format: 'uri' } });
