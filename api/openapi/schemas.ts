import { PAYMENT_METHOD_IDS } from '../../db/models';
import { object, schemaRef } from './component-helpers';
import type { SchemaObject } from './types';

/**
 * Schemas of answers that several operations share (a product, a checkout session, a payment method...),
 * referenced from route declarations with schemaRef('Name'). Request schemas are never written here:
 * they are generated from the joi schemas that validate them.
 */

const METHOD_IDS = [...PAYMENT_METHOD_IDS];
const decimal = (description: string): SchemaObject => ({
  type: 'string',
  pattern: '^\\d+(\\.\\d{2,3})?$',
  description: `${description} With the currency's own decimals (ISO 4217): 2 for SAR, 3 for KWD, none for JPY.`,
});

/** What a manual-payment answer tells the buyer about the store's payment deadline. */
/** The order a manual payment is for (the id the merchant sees) and what the buyer quotes with it. */
const MANUAL_ORDER = {
  order_id: { type: 'integer' },
  reference: { type: 'string', description: 'The order as the merchant sees it: `#<order_id>`.' },
} as const;

const MANUAL_DEADLINE = {
  payment_days: {
    type: 'integer',
    minimum: 1,
    description: 'Days the buyer has to pay (the store’s setting); after them the order is cancelled.',
  },
  pay_by: {
    type: 'string',
    format: 'date-time',
    description: 'When the order is cancelled if still unpaid.',
  },
} satisfies Record<string, SchemaObject>;

const amounts = {
  amount: decimal('Total payable.'),
  subtotal: decimal('(unit price + options) × quantity.'),
  discount_amount: decimal('The coupon’s discount.'),
  tax_amount: decimal('Tax added (exclusive) or contained (inclusive); 0.00 without tax.'),
};

export const sharedSchemas: Record<string, SchemaObject> = {
  PaymentMethod: object({
    id: { type: 'string', enum: METHOD_IDS },
    name_ar: { type: 'string' },
    name_en: { type: 'string' },
    icon: { type: 'string', description: 'Icon key (the method id).' },
  }),
  CouponResult: object({
    coupon_id: {
      type: ['integer', 'null'],
      description: 'Null when the code is a creator’s code and no coupon of the store (`creator: true`).',
    },
    code: { type: 'string' },
    type: { type: 'string', enum: ['percentage', 'fixed'] },
    amount: { type: 'number', description: 'Percent (10 = 10%) or fixed amount in major units (5.5).' },
    discount_amount: { type: 'number', description: 'Discount for this product and quantity, major units.' },
    payment_restrictions: {
      type: 'array',
      items: { type: 'string', enum: METHOD_IDS },
      description: 'Empty: any method.',
    },
    creator: {
      type: 'boolean',
      description:
        'True when the code is a creator’s (docs/growth.md, "Creator codes"): the checkout credits that ' +
        'creator and the discount is the creator’s buyer discount (`amount` percent, 0 when none).',
    },
  }),
  CheckoutSession: {
    oneOf: [
      object({
        type: { const: 'payment_required' },
        checkout_id: { type: 'integer' },
        checkout_url: {
          type: 'string',
          description:
            'Opaque 256-bit secret naming the checkout in payment calls and the status path; keep it private.',
        },
        payment_url: {
          type: 'string',
          format: 'uri',
          description: 'The hosted payment page: PUBLIC_BASE_URL/pay/{checkout_url}.',
        },
        reveal_token: {
          type: 'string',
          description:
            'Opaque 256-bit secret for this browser only: with `checkout_url` it shows the goods of the paid ' +
            'order for 30 minutes (POST /api/embed/order/reveal). Keep it in memory; only its hash is stored.',
        },
        ...amounts,
        payment_methods: { type: 'array', items: schemaRef('PaymentMethod') },
      }),
      object({
        type: { const: 'free_order' },
        order_id: { type: 'integer' },
        message: { type: 'string', examples: ['Order created successfully'] },
        checkout_url: { type: 'string', description: 'Its status endpoint answers is_paid true at once.' },
        reveal_token: {
          type: 'string',
          description:
            'Opaque 256-bit secret for this browser only: with `checkout_url` it shows the goods of the paid ' +
            'order for 30 minutes (POST /api/embed/order/reveal). Keep it in memory; only its hash is stored.',
        },
        ...amounts,
        payment_methods: { type: 'array', items: schemaRef('PaymentMethod'), maxItems: 0 },
      }),
    ],
  },
  EmbedCustomField: object({
    index: { type: 'integer', description: 'The key of its value in checkout `fields` / `field_files`.' },
    type: {
      type: 'string',
      enum: ['text', 'number', 'date', 'datetime', 'color', 'select', 'image', 'file'],
    },
    label: {
      type: 'string',
      description: 'In the reader’s language (Accept-Language): `label_ar` for Arabic.',
    },
    label_ar: { type: ['string', 'null'], description: 'The Arabic label, when the merchant gave one.' },
    required: { type: 'boolean' },
    options: {
      type: 'array',
      description: 'select fields: the options; choose one by its index.',
      items: object({
        index: { type: 'integer' },
        label: { type: 'string' },
        label_ar: { type: ['string', 'null'] },
        price: decimal('Added per unit.'),
      }),
    },
    upload: {
      type: ['object', 'null'],
      description: 'image and file fields: accepted extensions and largest size.',
      properties: {
        accept: { type: 'array', items: { type: 'string' } },
        max_size_bytes: { type: 'integer' },
      },
    },
  }),
  EmbedProduct: object(
    {
      id: { type: 'integer' },
      name: {
        type: 'string',
        description: 'In the reader’s language (Accept-Language): `name_ar` for Arabic readers when set.',
      },
      name_ar: { type: ['string', 'null'], description: 'The Arabic name, when the merchant gave one.' },
      slug: { type: 'string' },
      description: { type: ['string', 'null'], description: 'In the reader’s language, as `name`.' },
      description_ar: { type: ['string', 'null'] },
      type: { type: 'string', enum: ['product', 'code', 'service', 'subscription'] },
      currency: { type: 'string' },
      price: object({
        original: { type: 'number', description: 'List price.' },
        actual: { type: 'number', description: 'What is charged: the sale price when set.' },
        formatted: { type: 'string', examples: ['40.00 SAR'] },
        currency: { type: 'string' },
      }),
      stock: object({
        is_in_stock: { type: 'boolean' },
        quantity: {
          type: ['integer', 'null'],
          description: 'Null: unlimited. Code products: available keys.',
        },
      }),
      max_per_order: {
        type: 'integer',
        minimum: 1,
        description: 'Most units one checkout line may take; a larger `quantity` is a 422 naming `quantity`.',
      },
      image: object({ url: { type: ['string', 'null'] } }),
      categories: {
        type: 'array',
        items: object({ id: { type: 'integer' }, name: { type: 'string' }, slug: { type: 'string' } }),
      },
      fields: { type: 'array', items: schemaRef('EmbedCustomField') },
      subscription_plans: {
        type: 'array',
        items: object({
          id: { type: 'integer', description: 'Send as `subscription_plan`.' },
          name: { type: 'string' },
          price: decimal('Price per unit.'),
          price_formatted: { type: 'string' },
          duration: { type: 'string', enum: ['monthly', 'quarterly', 'yearly', 'lifetime'] },
        }),
      },
      payment_methods: {
        type: 'array',
        description: 'The store’s active methods; checkout narrows them by the real total and the coupon.',
        items: {
          allOf: [
            schemaRef('PaymentMethod'),
            {
              type: 'object',
              properties: {
                min_amount: { type: ['string', 'null'], description: 'Smallest total the method takes.' },
                max_amount: { type: ['string', 'null'], description: 'Largest total the method takes.' },
              },
            },
          ],
        },
      },
      purchasable: {
        type: 'boolean',
        description:
          'Whether a buyer can complete a purchase now. False when the product costs something and the store ' +
          'has no payment method on, or when it is out of stock: a widget says so before the buyer types anything.',
      },
      not_purchasable_reason: {
        type: ['string', 'null'],
        enum: ['no_payment_method', 'out_of_stock', null],
        description: 'Why `purchasable` is false; null when it is true.',
      },
      digits: {
        type: 'string',
        enum: ['western', 'arabic_indic'],
        description:
          'The digits the store writes its Arabic text with (its dashboard preference): `western` (0-9, the ' +
          'default) or `arabic_indic` (٠-٩). A widget shows Arabic amounts and dates with them; English ' +
          'text always uses 0-9. Optional: absent means `western`.',
      },
    },
    ['digits'],
  ),
  PaymentInitiation: {
    description:
      'For `paypal_manual` and `bank_transfer` the order exists already (Under review): `order_id` is the id ' +
      'the merchant sees, and `reference` (`#<order_id>`) is what the buyer quotes with the payment.',
    oneOf: [
      object({ type: { const: 'redirect' }, redirect_url: { type: 'string', format: 'uri' } }),
      object({
        type: { const: 'paypal_manual' },
        paypal_email: { type: 'string' },
        amount: { type: 'number' },
        checkout_url: { type: 'string' },
        ...MANUAL_DEADLINE,
        ...MANUAL_ORDER,
      }),
      object({
        type: { const: 'bank_transfer' },
        bank_details: object({
          bank_name: { type: 'string' },
          account_name: { type: 'string' },
          account_number: { type: 'string' },
          iban: { type: 'string' },
        }),
        amount: { type: 'number' },
        checkout_url: { type: 'string' },
        ...MANUAL_DEADLINE,
        ...MANUAL_ORDER,
      }),
    ],
  },
  PaymentStatus: object({ is_paid: { type: 'boolean' }, order_id: { type: ['integer', 'null'] } }),
  OrderReveal: {
    description:
      'The goods of the checkout’s order, for the browser holding its reveal token (docs/widget.md, “The ' +
      'goods after paying”): `shown` for 30 minutes after the order was placed while it is paid; else ' +
      '`hidden` with why (`not_paid`, `expired`, `withdrawn`: refunded or cancelled).',
    oneOf: [
      object({
        state: { const: 'shown' },
        order_id: { type: 'integer', description: 'The platform-wide order id.' },
        order_number: { type: 'integer', description: 'The order’s number in its store (#1, #2…).' },
        items: {
          type: 'array',
          items: object({
            name: { type: 'string' },
            codes: { type: 'array', items: { type: 'string' }, description: 'Code keys.' },
            license_keys: { type: 'array', items: { type: 'string' } },
            downloads: {
              type: 'array',
              items: object({ name: { type: 'string' }, url: { type: 'string', format: 'uri' } }),
            },
          }),
        },
        pending: {
          type: 'boolean',
          description: 'Some goods are still being prepared (license keys): ask again in a few seconds.',
        },
        sent_to: object({
          phone: { type: ['string', 'null'], description: 'Masked: +966 ••••••101.' },
          email: { type: ['string', 'null'], description: 'Masked: h•••@example.com.' },
        }),
        until: { type: 'string', format: 'date-time', description: 'When they stop being shown here.' },
      }),
      object({
        state: { const: 'hidden' },
        reason: { type: 'string', enum: ['not_paid', 'expired', 'withdrawn'] },
        order_id: { type: ['integer', 'null'] },
        order_number: { type: ['integer', 'null'] },
      }),
    ],
  },
  VerifyResult: {
    description: 'An existing customer is signed in; a new phone goes on with auth/complete.',
    oneOf: [
      object({
        status: { const: 'authenticated' },
        customer: schemaRef('Customer'),
        token: {
          type: 'string',
          description: 'Customer bearer token of the interface (embed or storefront).',
        },
      }),
      object({ status: { const: 'needs_registration' }, session_token: { type: 'string' } }),
    ],
  },
  Registered: object({ customer: schemaRef('Customer'), token: { type: 'string' } }),
  OtpSession: object({
    session_token: { type: 'string' },
    expires_in: { type: 'integer', description: 'Seconds until the session expires (OTP_TTL_SECONDS).' },
    resend_cooldown: {
      type: 'integer',
      description: 'Seconds before a resend (OTP_RESEND_COOLDOWN_SECONDS).',
    },
    masked_phone: { type: 'string' },
  }),
  Readiness: {
    type: 'object',
    required: ['status', 'checks'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      checks: {
        type: 'object',
        required: ['postgres', 'redis'],
        properties: {
          postgres: { type: 'string', enum: ['ok', 'unreachable'] },
          redis: { type: 'string', enum: ['ok', 'unreachable'] },
        },
      },
    },
  },
};
