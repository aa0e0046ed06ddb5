import { MAX_QUANTITY } from '../../../shared/services/checkout';
import { EMBED_KEY_SECURITY, embedOk, jsonBody, object, ref, Responses, schemaRef } from '../components';
import type { OperationObject, PathItemObject, RequestBodyObject, SchemaObject } from '../types';

/**
 * The Embed API's product, coupon and checkout routes (merged into the Embed fragment). The pricing,
 * reservation and upload rules below are the ones shared/services/{pricing,checkout,custom-fields} apply.
 */

const PAYMENT_METHOD_IDS = ['card', 'mada', 'stcpay', 'applepay', 'paypal', 'bank', 'coinbase'];
const decimal = (description: string): SchemaObject => ({
  type: 'string',
  pattern: '^\\d+\\.\\d{2}$',
  description,
});

const PRICING =
  '**Pricing.** Unit price: the subscription plan’s price when one is chosen, else the sale price when set, ' +
  'else the price. Each chosen `select` option adds its price to every unit. Subtotal = (unit price + ' +
  'options) × quantity. The coupon’s discount comes off the subtotal: a percentage rounded half up to the ' +
  'minor unit (never above 100%), a fixed amount never above the subtotal. Tax follows the store’s setting, ' +
  'on the discounted amount: `exclusive` adds VAT on top (rounded half up); `inclusive` means prices already ' +
  'contain VAT, so the total is unchanged and `tax_amount` shows the VAT inside it (net × rate / (1 + rate)); ' +
  '`none` charges no tax. All amounts are decimal strings with two places.';

const CHECKOUT_RULES =
  PRICING +
  '\n\n**Payment methods** are the store’s active methods whose minimum and maximum amounts admit the total, ' +
  'narrowed to the coupon’s `payment_restrictions` when it has any; when none is left the answer is 400 ' +
  '"No payment method is available for this order".' +
  '\n\n**Free orders.** A total of zero creates the order at once (`type: free_order`, with `order_id`) and ' +
  'queues its fulfilment; coupon uses are counted atomically as the order is created, so a coupon used up ' +
  'meanwhile answers 400 "Coupon has reached maximum uses" and nothing is written.' +
  '\n\n**Reservations.** A code-key product reserves `quantity` available keys and a product with finite ' +
  'stock takes `quantity` units, both released if the checkout expires unpaid. Not enough: 400 ' +
  '"Insufficient stock". The checkout lives `CHECKOUT_TTL_SECONDS` (default 3600); afterwards payment calls ' +
  'and the status endpoint answer 404.' +
  '\n\n**Errors.** 422 (`errors` by field) for invalid input: a `product_id` that is not an active product of ' +
  'this store, a `subscription_plan` missing for a subscription product or not a plan of the product, custom ' +
  'field values (`fields.{index}`) and uploads (`field_files.{index}`). 400 for a coupon refused as by ' +
  'apply-coupon (same messages), insufficient stock, or no payment method.' +
  '\n\n**Bodies.** `application/json`, or `multipart/form-data` to upload files. In multipart, custom values ' +
  'are parts `fields[{index}]` or `fields.{index}`, or one part `fields` holding a JSON object; files are ' +
  'parts `field_files.{index}`: image fields JPG, PNG, GIF up to 10 MB; file fields PDF, DOC, DOCX, TXT, ZIP ' +
  'up to 20 MB. Files are judged by their content (magic numbers; DOCX = a ZIP with `word/` entries; TXT = ' +
  'UTF-8 without NUL bytes), and a file name’s extension must agree with it. A refused upload stores nothing.';

const guarded: Responses = {
  '401': ref('responses', 'EmbedUnauthenticated'),
  '403': ref('responses', 'EmbedForbidden'),
  '422': ref('responses', 'EmbedValidationFailed'),
  '429': ref('responses', 'EmbedRateLimited'),
};

const refused = (description: string, messages: string[]) => ({
  description,
  content: {
    'application/json': {
      schema: schemaRef('EmbedError'),
      example: { success: false, message: messages[0] },
    },
  },
});

function operation(
  operationId: string,
  summary: string,
  description: string,
  responses: Responses,
  extra: Partial<OperationObject> = {},
): OperationObject {
  return {
    tags: ['Embed'],
    summary,
    description,
    operationId,
    security: EMBED_KEY_SECURITY,
    responses: { ...guarded, ...responses },
    ...extra,
  };
}

const customFieldValues: SchemaObject = {
  type: 'object',
  description:
    'Custom field values keyed by the field’s index in the product’s `fields` (an array is read by position). ' +
    'text: string (at most 1000 characters); number: number; date: `YYYY-MM-DD`; datetime: ISO 8601; ' +
    'color: `#rgb` or `#rrggbb`; select: the option’s index, whose price is added to each unit. Image and ' +
    'file fields are not sent here but as `field_files.{index}` parts.',
  additionalProperties: true,
  examples: [{ '0': 'Neo', '1': 1 }],
};

const checkoutCommon: Record<string, SchemaObject> = {
  product_id: { type: 'integer', minimum: 1, description: 'An active product of the embed key’s store.' },
  quantity: { type: 'integer', minimum: 1, maximum: MAX_QUANTITY },
  coupon_code: { type: 'string', maxLength: 100, description: 'Matched case-insensitively.' },
  customer_note: { type: 'string', maxLength: 500 },
  notice: { type: 'string', maxLength: 500, description: 'Another name for `customer_note` (which wins).' },
  subscription_plan: {
    type: 'integer',
    description: 'A plan id of the product; required for subscription products.',
  },
  fields: customFieldValues,
};
const OPTIONAL = ['coupon_code', 'customer_note', 'notice', 'subscription_plan', 'fields'];

/** JSON, or multipart/form-data carrying the same fields as text parts plus the files. */
function checkoutBody(schema: SchemaObject): RequestBodyObject {
  return {
    required: true,
    content: {
      'application/json': { schema },
      'multipart/form-data': {
        schema: {
          allOf: [
            schema,
            {
              type: 'object',
              description:
                'Every value as a text part; custom values as `fields[{index}]`, `fields.{index}` or a JSON ' +
                '`fields` part; uploads as `field_files.{index}` file parts.',
              additionalProperties: true,
            },
          ],
        },
      },
    },
  };
}

const checkoutResponses: Responses = {
  '200': embedOk(
    'The checkout session (payment_required) or the created order (free_order).',
    schemaRef('CheckoutSession'),
    {
      success: true,
      data: {
        type: 'payment_required',
        checkout_id: 42,
        checkout_url: 'N3q0cWfV0yq8m1G0u7zY5x2bZ8s0eYq3kQ9mB2p4LrA',
        payment_url: 'https://shop.example.test/pay/N3q0cWfV0yq8m1G0u7zY5x2bZ8s0eYq3kQ9mB2p4LrA',
        amount: '103.50',
        subtotal: '100.00',
        discount_amount: '10.00',
        tax_amount: '13.50',
        payment_methods: [{ id: 'card', name_ar: 'بطاقة ائتمانية', name_en: 'Credit card', icon: 'card' }],
      },
    },
  ),
  '400': refused('Coupon refused (apply-coupon’s messages), insufficient stock, or no payment method.', [
    'Insufficient stock',
  ]),
  '413': refused('The body is larger than the checkout accepts.', ['Request body is too large']),
};

export const embedCheckoutPaths: Record<string, PathItemObject> = {
  '/api/embed/product/{productId}': {
    get: operation(
      'embedGetProduct',
      'Product details for the widget',
      'An active product of the embed key’s store with what a checkout interface shows: prices (the spec’s ' +
        'price object; `actual` is what is charged), stock (`quantity` null = unlimited; for code products ' +
        'the number of available keys), image, categories, custom fields with their options and add-on ' +
        'prices, active subscription plans, and the store’s active payment methods with their amount bounds. ' +
        'An unknown, inactive or foreign product, or an id that is not a number, answers 404 "Product not found".',
      {
        '200': embedOk('The product.', schemaRef('EmbedProduct')),
        '404': refused('No such product on sale in this store.', ['Product not found']),
      },
      {
        parameters: [
          { name: 'productId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        ],
      },
    ),
  },
  '/api/embed/apply-coupon': {
    post: operation(
      'embedApplyCoupon',
      'Check a coupon',
      'No customer authentication. The discount is computed on the product’s price (the sale price when set, ' +
        'or the price of `subscription_plan` when given) times the quantity, before options and tax; checkout ' +
        'recomputes it on the real subtotal. Checks, in order, each a 400 with its message: unknown code in this store → "Invalid coupon"; inactive, not yet ' +
        'started or expired → "Coupon is not active"; uses reached → "Coupon has reached maximum uses"; limited ' +
        'to other products → "This coupon is not valid for this product"; subtotal below the minimum → ' +
        '"Minimum order value is 20.00" (a decimal amount in the store’s currency, without the code). ' +
        'A `product_id` that is not an active product of this store is a 422 on `product_id`. ' +
        'When `payment_restrictions` is non-empty only those methods may be used with the coupon.',
      {
        '200': embedOk('The coupon and the discount it gives.', schemaRef('CouponResult'), {
          success: true,
          data: {
            coupon_id: 7,
            code: 'SAVE10',
            type: 'percentage',
            amount: 10,
            discount_amount: 8,
            payment_restrictions: ['card', 'mada'],
          },
        }),
        '400': refused('The coupon cannot be used (see the description for each message).', [
          'Invalid coupon',
          'Coupon is not active',
          'Coupon has reached maximum uses',
          'Minimum order value is 20.00',
          'This coupon is not valid for this product',
        ]),
      },
      {
        requestBody: jsonBody(
          object(
            {
              code: { type: 'string', maxLength: 100 },
              product_id: { type: 'integer', minimum: 1 },
              quantity: { type: 'integer', minimum: 1, maximum: MAX_QUANTITY },
              subscription_plan: {
                type: 'integer',
                description: 'Optional: a plan of the product whose price the discount is computed on.',
              },
            },
            ['subscription_plan'],
          ),
        ),
      },
    ),
  },
  '/api/embed/checkout': {
    post: operation(
      'embedCheckout',
      'Create a checkout (signed-in customer)',
      'Bearer token with the ability `embed:checkout`, issued for the embed key’s store (a token of another ' +
        'store answers 401; a storefront token 403). The customer’s details come from the token.\n\n' +
        CHECKOUT_RULES,
      checkoutResponses,
      {
        security: [
          { EmbedKey: [], CustomerBearer: [] },
          { EmbedKeyQuery: [], CustomerBearer: [] },
        ],
        requestBody: checkoutBody(object(checkoutCommon, OPTIONAL)),
      },
    ),
  },
  '/api/embed/guest/checkout': {
    post: operation(
      'embedGuestCheckout',
      'Create a checkout (guest)',
      'No sign-in: the customer’s details come with the request. `customer_phone` is kept as digits (spaces, ' +
        'dashes, dots and brackets dropped); `customer_country_code` as digits without + or 00. Answers as the ' +
        'signed-in checkout.\n\n' +
        CHECKOUT_RULES,
      checkoutResponses,
      {
        requestBody: checkoutBody(
          object(
            {
              ...checkoutCommon,
              customer_first_name: { type: 'string', minLength: 1, maxLength: 100 },
              customer_last_name: { type: 'string', minLength: 1, maxLength: 100 },
              customer_email: { type: 'string', format: 'email', maxLength: 254 },
              customer_phone: { type: 'string', maxLength: 20, description: 'Digits, 4 to 20.' },
              customer_country_code: {
                type: 'string',
                maxLength: 10,
                description: '1 to 4 digits, optionally after + or 00.',
              },
            },
            OPTIONAL,
          ),
        ),
      },
    ),
  },
};

const amounts = {
  amount: decimal('Total payable.'),
  subtotal: decimal('(unit price + options) × quantity.'),
  discount_amount: decimal('The coupon’s discount.'),
  tax_amount: decimal('Tax added (exclusive) or contained (inclusive); 0.00 without tax.'),
};

export const embedCheckoutSchemas: Record<string, SchemaObject> = {
  PaymentMethod: object({
    id: { type: 'string', enum: PAYMENT_METHOD_IDS },
    name_ar: { type: 'string' },
    name_en: { type: 'string' },
    icon: { type: 'string', description: 'Icon key (the method id).' },
  }),
  CouponResult: object({
    coupon_id: { type: 'integer' },
    code: { type: 'string' },
    type: { type: 'string', enum: ['percentage', 'fixed'] },
    amount: { type: 'number', description: 'Percent (10 = 10%) or fixed amount in major units (5.5).' },
    discount_amount: { type: 'number', description: 'Discount for this product and quantity, major units.' },
    payment_restrictions: {
      type: 'array',
      items: { type: 'string', enum: PAYMENT_METHOD_IDS },
      description: 'Empty: any method.',
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
        ...amounts,
        payment_methods: { type: 'array', items: schemaRef('PaymentMethod') },
      }),
      object({
        type: { const: 'free_order' },
        order_id: { type: 'integer' },
        message: { type: 'string', examples: ['Order created successfully'] },
        checkout_url: { type: 'string', description: 'Its status endpoint answers is_paid true at once.' },
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
    label: { type: 'string' },
    required: { type: 'boolean' },
    options: {
      type: 'array',
      description: 'select fields: the options; choose one by its index.',
      items: object({
        index: { type: 'integer' },
        label: { type: 'string' },
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
  EmbedProduct: object({
    id: { type: 'integer' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: ['string', 'null'] },
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
      quantity: { type: ['integer', 'null'], description: 'Null: unlimited. Code products: available keys.' },
    }),
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
  }),
};
