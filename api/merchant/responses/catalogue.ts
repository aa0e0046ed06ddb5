import type { SchemaObject } from '../../openapi/types';
import { bool, int, money, nint, nmoney, nstr, ntime, obj, pageOf, str, time } from './scalars';

/** Products, categories, key stock and coupons. */
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
export const CategoryDetail = CategorySummary;

export const ProductImage = obj({ id: int, image_url: { type: 'string', format: 'uri' } });
