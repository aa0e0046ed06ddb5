import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { formatMoney } from '../../money';
import { paginate, PageMeta, PageRequest } from '../../pagination';
import { iso } from '../../views';

/**
 * Subscriptions as the merchant sees them. Each period after the first is a renewal (charged to the saved
 * card, or paid by the buyer through a link); the detail lists them with their orders.
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
      // When the buyer accepted the waiting price from their account (docs/account.md).
      knex.raw(
        `(select n.accepted_at from subscription_price_notices n
           where n.subscription_id = s.id and n.to_price_minor = s.next_price_minor
           order by n.id desc limit 1) as next_price_accepted_at`,
      ),
      'o.customer_first_name',
      'o.customer_last_name',
      'o.customer_email',
      'o.customer_country_code',
      'o.customer_phone',
    );
}

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
  cancel_at_period_end: boolean;
  next_plan_id: number | null;
  price_minor: number | string | null;
  currency: string | null;
  next_price_minor: number | string | null;
  next_terms_from: Date | null;
  next_price_accepted_at: Date | null;
  payment_method: string | null;
  payment_token_encrypted: string | null;
  past_due_since: Date | null;
  ended_at: Date | null;
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
    current_period_end: iso(s.current_period_end),
    cancel_at_period_end: s.cancel_at_period_end,
    next_plan_id: s.next_plan_id,
    price: s.price_minor === null ? null : formatMoney(Number(s.price_minor), s.currency),
    currency: s.currency,
    next_price:
      s.next_price_minor === null || s.next_terms_from === null
        ? null
        : {
            price: formatMoney(Number(s.next_price_minor), s.currency),
            applies_from: iso(s.next_terms_from),
            accepted_at: iso(s.next_price_accepted_at),
          },
    payment_method: s.payment_method,
    renews_by:
      s.current_period_end === null ||
      s.status === 'cancelled' ||
      s.status === 'expired' ||
      s.cancel_at_period_end
        ? 'none'
        : s.payment_token_encrypted
          ? 'saved_card'
          : 'payment_link',
    past_due_since: iso(s.past_due_since),
    ended_at: iso(s.ended_at),
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
  const renewals = await knex('subscription_renewals as r')
    .leftJoin('orders as o', 'o.id', 'r.order_id')
    .where('r.subscription_id', row.id)
    .orderBy('r.period_start')
    .select('r.*', 'o.total_minor');
  return {
    ...viewOf(row),
    renewals: renewals.map((r) => ({
      id: Number(r.id),
      order_id: r.order_id === null ? null : Number(r.order_id),
      period_start: iso(r.period_start),
      status: r.status,
      attempts: Number(r.attempts),
      next_attempt_at: iso(r.next_attempt_at),
      total: r.total_minor === null ? null : formatMoney(Number(r.total_minor)),
      created_at: iso(r.created_at),
    })),
  };
}
