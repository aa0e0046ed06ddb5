import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { formatMoney } from '../../money';
import { paginate, PageMeta, PageRequest } from './pagination';

/**
 * Subscriptions as the merchant sees them. Renewals: the platform has no automatic recurring charge yet,
 * so a renewal is a later order of the same customer for the same plan; they are listed in the detail.
 */

export const SUBSCRIPTION_NOT_FOUND = 'Subscription not found';

export interface SubscriptionFilters {
  status?: string;
  product_id?: number;
  customer_id?: number;
}

function baseQuery(knex: Knex, storeId: number): Knex.QueryBuilder {
  return knex('subscriptions as s')
    .leftJoin('customers as c', 'c.id', 's.customer_id')
    .leftJoin('products as p', 'p.id', 's.product_id')
    .leftJoin('product_plans as pl', 'pl.id', 's.plan_id')
    .leftJoin('orders as o', 'o.id', 's.order_id')
    .where('s.store_id', storeId)
    .select(
      's.*',
      'c.first_name',
      'c.last_name',
      'c.email',
      'c.country_code',
      'c.phone',
      'p.name as product_name',
      'pl.name as plan_name',
      'pl.duration as plan_duration',
      'pl.price_minor as plan_price_minor',
      'o.customer_first_name',
      'o.customer_last_name',
      'o.customer_email',
      'o.customer_country_code',
      'o.customer_phone',
    );
}

const iso = (d: unknown): string | null => (d ? new Date(d as Date).toISOString() : null);

/** A row of baseQuery: the subscription's own columns, with its customer, product, plan and order. */
interface SubscriptionRow {
  id: number | string;
  status: string;
  customer_id: number | null;
  product_id: number;
  plan_id: number | null;
  order_id: number | null;
  current_period_start: Date | null;
  current_period_end: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  country_code: string | null;
  phone: string | null;
  product_name: string | null;
  plan_name: string | null;
  plan_duration: string | null;
  plan_price_minor: number | string | null;
  customer_first_name: string | null;
  customer_last_name: string | null;
  customer_email: string | null;
  customer_country_code: string | null;
  customer_phone: string | null;
}

function viewOf(s: SubscriptionRow) {
  return {
    id: Number(s.id),
    status: s.status,
    customer: {
      id: s.customer_id,
      first_name: s.first_name ?? s.customer_first_name ?? null,
      last_name: s.last_name ?? s.customer_last_name ?? null,
      email: s.email ?? s.customer_email ?? null,
      country_code: s.country_code ?? s.customer_country_code ?? null,
      phone: s.phone ?? s.customer_phone ?? null,
    },
    product: { id: s.product_id, name: s.product_name ?? null },
    plan: {
      id: s.plan_id,
      name: s.plan_name ?? null,
      duration: s.plan_duration ?? null,
      price:
        s.plan_price_minor === null || s.plan_price_minor === undefined
          ? null
          : formatMoney(Number(s.plan_price_minor)),
    },
    order_id: s.order_id,
    current_period: { start: iso(s.current_period_start), end: iso(s.current_period_end) },
    cancelled_at: iso(s.cancelled_at),
    created_at: iso(s.created_at),
  };
}

export async function listSubscriptions(
  knex: Knex,
  storeId: number,
  filters: SubscriptionFilters,
  page: PageRequest,
): Promise<{ items: ReturnType<typeof viewOf>[]; meta: PageMeta }> {
  const base = baseQuery(knex, storeId);
  if (filters.status) base.where('s.status', filters.status);
  if (filters.product_id !== undefined) base.where('s.product_id', filters.product_id);
  if (filters.customer_id !== undefined) base.where('s.customer_id', filters.customer_id);
  const { rows, meta } = await paginate<SubscriptionRow>(base, page, (q) =>
    q.orderBy([
      { column: 's.created_at', order: 'desc' },
      { column: 's.id', order: 'desc' },
    ]),
  );
  return { items: rows.map(viewOf), meta };
}

export async function subscriptionDetail(
  knex: Knex,
  storeId: number,
  id: number,
): Promise<Record<string, unknown>> {
  const row = (await baseQuery(knex, storeId).where('s.id', id).first()) as SubscriptionRow | undefined;
  if (!row) throw new NotFoundError(SUBSCRIPTION_NOT_FOUND);
  const renewals =
    row.customer_id !== null && row.order_id !== null
      ? await knex('orders as o')
          .join('order_items as i', 'i.order_id', 'o.id')
          .where({ 'o.store_id': storeId, 'o.customer_id': row.customer_id, 'i.plan_id': row.plan_id })
          .where('o.id', '>', row.order_id)
          .orderBy('o.id')
          .select('o.id', 'o.status', 'o.total_minor', 'o.created_at')
      : [];
  return {
    ...viewOf(row),
    renewals: renewals.map((r) => ({
      order_id: r.id,
      status: r.status,
      total: formatMoney(Number(r.total_minor)),
      created_at: iso(r.created_at),
    })),
  };
}
