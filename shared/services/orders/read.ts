import type { Knex } from 'knex';
import type { CustomField, OrderStatus } from '../../../db/models';
import { NotFoundError } from '../../errors';
import { formatMoney } from '../../money';
import { refundSummary } from '../refunds/view';
import { orderFivemCommands } from '../fivem/commands';
import { ORDER_NOT_FOUND, STATUS_LABELS } from './lifecycle';
import { paginate, PageMeta, PageRequest } from '../../pagination';
import { countStoreOrders } from '../statistics/rollups';
import { iso } from '../../views';

/**
 * The Merchant API's view of orders. An order of another store is "not found", never "forbidden":
 * every lookup is by (store_id, id).
 */

export { ORDER_NOT_FOUND, STATUS_LABELS } from './lifecycle';

export interface OrderFilters {
  status?: number[];
  from?: Date;
  to?: Date;
  email?: string;
  phone?: string;
  product_id?: number;
}

interface OrderRow {
  id: number;
  number: number;
  store_id: number;
  status: OrderStatus;
  customer_id: number | null;
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  customer_country_code: string;
  customer_phone: string;
  subtotal_minor: number;
  discount_minor: number;
  tax_minor: number;
  total_minor: number;
  currency: string;
  coupon_id: number | null;
  payment_method: string | null;
  payment_id: number | null;
  customer_note: string | null;
  source: string;
  checkout_id: number | null;
  completed_at: Date | null;
  cancelled_at: Date | null;
  refunded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface ItemRow {
  id: number;
  order_id: number;
  product_id: number | null;
  plan_id: number | null;
  name: string;
  type: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
  fields: Record<string, unknown>;
  delivered_at: Date | null;
}

/** The columns a list entry shows (summaryOf): a page of 50 parses no more than it answers. */
const SUMMARY_COLUMNS = [
  'id',
  'number',
  'status',
  'total_minor',
  'currency',
  'payment_method',
  'source',
  'customer_id',
  'customer_first_name',
  'customer_last_name',
  'customer_email',
  'customer_country_code',
  'customer_phone',
  'created_at',
] as const;

type SummaryRow = Pick<OrderRow, (typeof SUMMARY_COLUMNS)[number]>;
type SummaryItemRow = Pick<ItemRow, 'order_id' | 'product_id' | 'name' | 'quantity'>;

function customerOf(o: SummaryRow) {
  return {
    id: o.customer_id,
    first_name: o.customer_first_name,
    last_name: o.customer_last_name,
    email: o.customer_email,
    country_code: o.customer_country_code,
    phone: o.customer_phone,
  };
}

function summaryOf(o: SummaryRow, items: SummaryItemRow[]) {
  return {
    id: o.id,
    number: o.number,
    status: o.status,
    status_label: STATUS_LABELS[o.status],
    total: formatMoney(o.total_minor, o.currency),
    currency: o.currency,
    payment_method: o.payment_method,
    source: o.source,
    customer: customerOf(o),
    items: items.map((i) => ({ product_id: i.product_id, name: i.name, quantity: i.quantity })),
    created_at: iso(o.created_at),
  };
}

export type OrderSummary = ReturnType<typeof summaryOf>;

/** GET /shawarma/orders: newest first, filtered, one page. */
export async function listOrders(
  knex: Knex,
  storeId: number,
  filters: OrderFilters,
  page: PageRequest,
): Promise<{ items: OrderSummary[]; meta: PageMeta }> {
  const base = knex('orders')
    .where('store_id', storeId)
    .select(SUMMARY_COLUMNS.map((c) => `orders.${c}`));
  if (filters.status?.length) base.whereIn('status', filters.status);
  if (filters.from) base.where('created_at', '>=', filters.from);
  if (filters.to) base.where('created_at', '<=', filters.to);
  if (filters.email) base.whereRaw('lower(customer_email) = ?', [filters.email.toLowerCase()]);
  if (filters.phone) base.where('customer_phone', filters.phone);
  if (filters.product_id !== undefined) {
    base.whereExists(
      knex('order_items')
        .select(knex.raw('1'))
        .whereRaw('order_items.order_id = orders.id')
        .where('order_items.product_id', filters.product_id),
    );
  }
  // Filtered by status at most: the count comes from the order rollups, not from the store's orders.
  const byStatusOnly =
    !filters.from && !filters.to && !filters.email && !filters.phone && filters.product_id === undefined;
  const { rows, meta } = await paginate<SummaryRow>(
    base,
    page,
    (q) =>
      q.orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]),
    byStatusOnly ? () => countStoreOrders(knex, storeId, filters.status) : undefined,
  );
  const items = rows.length
    ? await knex<ItemRow>('order_items')
        .select<SummaryItemRow[]>('order_id', 'product_id', 'name', 'quantity')
        .whereIn(
          'order_id',
          rows.map((r) => r.id),
        )
        .orderBy('id')
    : [];
  return {
    items: rows.map((o) =>
      summaryOf(
        o,
        items.filter((i) => i.order_id === o.id),
      ),
    ),
    meta,
  };
}

/** The order of this store, or NotFound (404) for a missing id and another store's order alike. */
export async function findStoreOrder(knex: Knex, storeId: number, orderId: number): Promise<OrderRow> {
  const order = await knex<OrderRow>('orders').where({ id: orderId, store_id: storeId }).first();
  if (!order) throw new NotFoundError(ORDER_NOT_FOUND);
  return order;
}

/** A merchant-only link to an uploaded custom field file (served by GET /shawarma/orders/{id}/uploads/{i}). */
export function uploadUrl(publicBaseUrl: string, orderId: number, fieldIndex: number): string {
  return `${publicBaseUrl}/shawarma/orders/${orderId}/uploads/${fieldIndex}`;
}

/** GET /shawarma/orders/{id}: everything the merchant needs to act on the order. */
export async function orderDetail(knex: Knex, storeId: number, orderId: number, publicBaseUrl: string) {
  const order = await findStoreOrder(knex, storeId, orderId);
  const [items, payment, coupon, licenses, subscriptions, fivem, history, uploads] = await Promise.all([
    knex<ItemRow>('order_items').where('order_id', order.id).orderBy('id'),
    order.payment_id ? knex('payments').where('id', order.payment_id).first() : Promise.resolve(undefined),
    order.coupon_id
      ? knex('coupons').where('id', order.coupon_id).first('id', 'code', 'type')
      : Promise.resolve(undefined),
    knex('licenses')
      .where('order_id', order.id)
      .orderBy('id')
      .select(
        'id',
        'key',
        'status',
        'product_id',
        'plan_id',
        'order_item_id',
        'lock_type',
        'max_activations',
        'starts_at',
        'expires_at',
      ),
    knex('subscriptions')
      .where('order_id', order.id)
      // A renewal order shows the subscription it renewed.
      .orWhereIn('id', knex('subscription_renewals').select('subscription_id').where('order_id', order.id))
      .orderBy('id')
      .select(
        'id',
        'status',
        'product_id',
        'plan_id',
        'current_period_start',
        'current_period_end',
        'cancelled_at',
      ),
    orderFivemCommands(knex, order.id),
    knex('order_status_events')
      .where('order_id', order.id)
      .orderBy('id')
      .select('from_status', 'to_status', 'source', 'created_at'),
    order.checkout_id
      ? knex('checkout_uploads')
          .where('checkout_id', order.checkout_id)
          .select('field_index', 'original_name', 'mime_type', 'size_bytes')
      : Promise.resolve([]),
  ]);
  const products = new Map<number, CustomField[]>();
  const productIds = [...new Set(items.map((i) => i.product_id).filter((id): id is number => id !== null))];
  if (productIds.length) {
    for (const p of await knex('products').whereIn('id', productIds).select('id', 'fields')) {
      products.set(Number(p.id), Array.isArray(p.fields) ? (p.fields as CustomField[]) : []);
    }
  }
  const codes = items.length
    ? await knex('product_codes')
        .whereIn(
          'order_item_id',
          items.map((i) => i.id),
        )
        .orderBy('id')
        .select('order_item_id', 'code')
    : [];
  const uploadByIndex = new Map<number, { original_name: string; mime_type: string; size_bytes: number }>(
    (uploads as { field_index: number; original_name: string; mime_type: string; size_bytes: number }[]).map(
      (u) => [u.field_index, u],
    ),
  );

  const refunds = await refundSummary(knex, order);
  return {
    id: order.id,
    number: order.number,
    status: order.status,
    status_label: STATUS_LABELS[order.status],
    subtotal: formatMoney(order.subtotal_minor, order.currency),
    discount: formatMoney(order.discount_minor, order.currency),
    tax: formatMoney(order.tax_minor, order.currency),
    total: formatMoney(order.total_minor, order.currency),
    currency: order.currency,
    source: order.source,
    customer_note: order.customer_note,
    customer: customerOf(order),
    payment: payment
      ? {
          id: payment.id,
          method: payment.method,
          provider: payment.provider,
          status: payment.status,
          amount: formatMoney(Number(payment.amount_minor), payment.currency),
          currency: payment.currency,
          paid_at: iso(payment.paid_at),
        }
      : order.payment_method
        ? {
            id: null,
            method: order.payment_method,
            provider: null,
            status: null,
            amount: null,
            currency: null,
            paid_at: null,
          }
        : null,
    coupon: coupon
      ? {
          id: coupon.id,
          code: coupon.code,
          type: coupon.type,
          discount: formatMoney(order.discount_minor, order.currency),
        }
      : null,
    refunds,
    items: items.map((item) => {
      const defs = item.product_id !== null ? (products.get(item.product_id) ?? []) : [];
      const values = item.fields && typeof item.fields === 'object' ? item.fields : {};
      return {
        id: item.id,
        product_id: item.product_id,
        plan_id: item.plan_id,
        name: item.name,
        type: item.type,
        quantity: item.quantity,
        unit_price: formatMoney(item.unit_price_minor, order.currency),
        total: formatMoney(item.total_minor, order.currency),
        delivered_at: iso(item.delivered_at),
        fields: Object.entries(values)
          .map(([key, value]) => {
            const index = Number(key);
            const def = defs[index];
            const upload = uploadByIndex.get(index);
            return {
              index,
              label: def?.label ?? null,
              type: def?.type ?? null,
              value: upload ? null : value,
              file: upload
                ? {
                    name: upload.original_name,
                    mime_type: upload.mime_type,
                    size_bytes: upload.size_bytes,
                    url: uploadUrl(publicBaseUrl, order.id, index),
                  }
                : null,
            };
          })
          .sort((a, b) => a.index - b.index),
        codes: codes.filter((c) => c.order_item_id === item.id).map((c) => c.code as string),
      };
    }),
    licenses: licenses.map((l) => ({
      id: l.id,
      key: l.key,
      status: l.status,
      product_id: l.product_id,
      plan_id: l.plan_id,
      order_item_id: l.order_item_id,
      lock_type: l.lock_type,
      max_activations: l.max_activations,
      starts_at: iso(l.starts_at),
      expires_at: iso(l.expires_at),
    })),
    fivem_commands: fivem,
    subscription_id: subscriptions.length > 0 ? Number(subscriptions[0].id) : null,
    subscriptions: subscriptions.map((s) => ({
      id: s.id,
      status: s.status,
      product_id: s.product_id,
      plan_id: s.plan_id,
      current_period_start: iso(s.current_period_start),
      current_period_end: iso(s.current_period_end),
      cancelled_at: iso(s.cancelled_at),
    })),
    history: history.map((h) => ({
      from: h.from_status,
      to: h.to_status,
      source: h.source,
      at: iso(h.created_at),
    })),
    created_at: iso(order.created_at),
    updated_at: iso(order.updated_at),
    completed_at: iso(order.completed_at),
    cancelled_at: iso(order.cancelled_at),
    refunded_at: iso(order.refunded_at),
  };
}

/** The stored file of a custom field of this store's order, for the merchant to download. */
export async function orderUpload(
  knex: Knex,
  storeId: number,
  orderId: number,
  fieldIndex: number,
): Promise<{ storage_key: string; original_name: string; mime_type: string; size_bytes: number }> {
  const order = await findStoreOrder(knex, storeId, orderId);
  const upload = order.checkout_id
    ? await knex('checkout_uploads')
        .where({ checkout_id: order.checkout_id, field_index: fieldIndex })
        .first()
    : undefined;
  if (!upload) throw new NotFoundError('Upload not found');
  return upload;
}
