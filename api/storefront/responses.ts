import { object, schemaRef } from '../openapi/components';
import type { PublicErrorCode } from '../../shared/error-codes';
import type { ResponseObject, SchemaObject, SecurityRequirement } from '../openapi/types';

/** Answer schemas and helpers of the Storefront routes (products, cart, wishlist, reviews). */

export const CUSTOMER_TOKEN: SecurityRequirement[] = [{ CustomerBearer: [] }];
/** The cart: a storefront customer token, or nothing (an anonymous visitor names the cart by X-Cart-Id). */
export const CUSTOMER_OR_ANONYMOUS: SecurityRequirement[] = [{ CustomerBearer: [] }, {}];

const decimal = (description: string): SchemaObject => ({
  type: 'string',
  pattern: '^\\d+(\\.\\d{2,3})?$',
  description: `${description} With the currency's own decimals (ISO 4217): 2 for SAR, 3 for KWD, none for JPY.`,
});

/** An error answer of the Storefront envelope with its own description, an example code and message. */
export const storefrontRefused = (
  description: string,
  errorCode: PublicErrorCode,
  message: string,
): ResponseObject => ({
  description,
  content: {
    'application/json': {
      schema: schemaRef('StorefrontError'),
      example: { success: false, data: null, message, error_code: errorCode },
    },
  },
});

export const unauthenticated = storefrontRefused(
  'No token, an invalid or expired one, a token of another store, or an Embed token.',
  'unauthenticated',
  'Unauthenticated.',
);

/** Spec: "Product (as embedded in wishlist results)". */
export const productCard: SchemaObject = object({
  id: { type: 'integer' },
  name: { type: 'string' },
  slug: { type: 'string' },
  type: { type: 'string', enum: ['product', 'code', 'service', 'subscription'] },
  price: object({
    original: { type: 'number', description: 'List price.' },
    actual: { type: 'number', description: 'What is charged: the sale price when set.' },
    formatted: { type: 'string', examples: ['40.00 SAR'] },
    currency: { type: 'string' },
  }),
  stock: object({ is_in_stock: { type: 'boolean' } }),
  image: object({ url: { type: 'string', description: 'Empty when the product has no image.' } }),
  categories: {
    type: 'array',
    items: object({ id: { type: 'integer' }, name: { type: 'string' }, slug: { type: 'string' } }),
  },
});

export const pageMeta: SchemaObject = object({
  page: { type: 'integer' },
  per_page: { type: 'integer' },
  total: { type: 'integer' },
  last_page: { type: 'integer' },
});

export const pageOf = (item: SchemaObject): SchemaObject =>
  object({ items: { type: 'array', items: item }, meta: pageMeta });

export const review: SchemaObject = object({
  id: { type: 'integer' },
  rating: { type: 'integer', minimum: 1, maximum: 5 },
  comment: { type: ['string', 'null'] },
  product_id: { type: ['integer', 'null'], description: 'Null for a store (order-level) review.' },
  created_at: { type: 'string', format: 'date-time' },
  type: { type: 'string', enum: ['store', 'product'] },
  reviewer: object({ name: { type: 'string', description: 'First name and initial: "Sara A."' } }),
  product: {
    oneOf: [
      { type: 'null' },
      object({ id: { type: 'integer' }, name: { type: 'string' }, slug: { type: 'string' } }),
    ],
  },
  verified_purchase: {
    type: 'boolean',
    description: 'Written from the buyer’s account by someone who bought the product.',
  },
  reply: { type: ['string', 'null'], description: 'The store’s public answer.' },
});

const distribution = object({
  '1': { type: 'integer' },
  '2': { type: 'integer' },
  '3': { type: 'integer' },
  '4': { type: 'integer' },
  '5': { type: 'integer' },
});

export const reviewStats: SchemaObject = object({
  product_id: { type: ['integer', 'null'] },
  count: { type: 'integer' },
  average: { type: 'number', description: 'Mean rating to two decimals; 0 without reviews.' },
  rating_distribution: distribution,
});

export const cart: SchemaObject = object({
  cart_id: {
    type: ['string', 'null'],
    description: 'An anonymous visitor’s cart id, to send back as `X-Cart-Id`; null for a customer’s cart.',
  },
  items: {
    type: 'array',
    items: object({
      id: { type: 'integer', description: 'The line id, for PATCH/DELETE /api/cart/items/{itemId}.' },
      product: { oneOf: [{ type: 'null' }, productCard] },
      product_id: { type: 'integer' },
      quantity: { type: 'integer' },
      subscription_plan: {
        oneOf: [
          { type: 'null' },
          object({ id: { type: 'integer' }, name: { type: 'string' }, price: decimal('Price per unit.') }),
        ],
      },
      fields: { type: 'object', description: 'The custom field values as sent, keyed by field index.' },
      unit_price: { oneOf: [{ type: 'null' }, decimal('Unit price now (plan or sale price).')] },
      addons: { oneOf: [{ type: 'null' }, decimal('Chosen options’ prices per unit.')] },
      subtotal: { oneOf: [{ type: 'null' }, decimal('(unit price + add-ons) × quantity.')] },
      available: { type: 'boolean', description: 'False: left out of the totals; see `problem`.' },
      problem: { type: ['string', 'null'] },
    }),
  },
  count: { type: 'integer', description: 'Units over the available lines.' },
  currency: { type: 'string' },
  coupon: {
    oneOf: [
      { type: 'null' },
      object({
        code: { type: 'string' },
        discount_amount: decimal('Discount now.'),
        error: { type: ['string', 'null'], description: 'Why the coupon gives nothing now, if it does not.' },
      }),
    ],
  },
  subtotal: decimal('Sum of the available lines.'),
  discount_amount: decimal('The coupon’s discount on the lines it applies to.'),
  tax_amount: decimal('Tax added (exclusive) or contained (inclusive).'),
  total: decimal('What a checkout would charge now.'),
});
