import type { Knex } from 'knex';
import { downloadLinksForItems, type DownloadLink } from '../files/entitlement';
import { documentLinks, type DocumentLink } from '../invoices/read';
import { accountKeys, type AccountKey } from './claims';
import { ACCOUNT_STATUSES, whereBuyerOwns } from './identity';
import type { BuyerIdentity } from './sessions';

/**
 * What a signed-in buyer sees (docs/account.md): their orders in every store, newest first, grouped by
 * store by the page, each with its items and goods (code keys, license keys with their activations,
 * download addresses), its invoice or receipt page and the store's support contact; their subscriptions.
 * Everything is found through whereBuyerOwns: nothing here reads an order by id alone.
 */
export const ACCOUNT_ORDER_LIMIT = 200;
/** Goods (keys, files) of a paid order that is neither cancelled nor refunded. */
const GOODS_STATUSES = [3, 4];

export interface AccountActivation {
  id: number;
  hint: string | null;
  first_seen_at: Date;
  last_seen_at: Date;
}

export interface AccountLicense {
  id: number;
  key: string;
  status: string;
  lock_type: string;
  max_activations: number;
  expires_at: Date | null;
  plan_name: string | null;
  activations: AccountActivation[];
}

export interface AccountItem {
  id: number;
  product_id: number | null;
  name: string;
  quantity: number;
  total_minor: number;
  codes: string[];
  /** The code keys with their replacement claims (docs/account.md, "This key does not work"). */
  keys: AccountKey[];
  licenses: AccountLicense[];
  downloads: DownloadLink[];
  reviewable: boolean;
  review: { rating: number; comment: string | null; published: boolean } | null;
}

export interface AccountOrder {
  id: number;
  /** The order's number in its store (counting from 1); `id` stays the platform-wide id. */
  number: number;
  status: number;
  total_minor: number;
  currency: string;
  created_at: Date;
  store: { id: number; name: string; slug: string; support_email: string | null };
  items: AccountItem[];
  document: DocumentLink | null;
}

export interface AccountSubscription {
  id: number;
  status: string;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  product_name: string;
  plan_name: string;
  price_minor: number;
  currency: string;
  next_price_minor: number | null;
  next_terms_from: Date | null;
  store_name: string;
  order_id: number | null;
  /** The provider that keeps the saved card (renewals charge it), or null. */
  provider: string | null;
  /** The waiting price was announced (a rise), and when the buyer accepted it from the account, if they did. */
  price_notice: { accepted_at: Date | null } | null;
  renewals: { order_id: number | null; order_number: number | null; created_at: Date; status: string }[];
}

interface ReadDeps {
  knex: Knex;
  appSecret: string;
  config: { publicBaseUrl: string };
}

/** The buyer's orders, newest first; `search` narrows to a store's or a product's name. */
export async function accountOrders(
  deps: ReadDeps,
  identity: BuyerIdentity,
  search = '',
): Promise<AccountOrder[]> {
  const { knex } = deps;
  const q = whereBuyerOwns(knex('orders as o'), identity)
    .join('stores as s', 's.id', 'o.store_id')
    .whereIn('o.status', ACCOUNT_STATUSES);
  const term = search.trim().slice(0, 100);
  if (term) {
    const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q.where((w) =>
      w
        .where('s.name', 'ilike', like)
        .orWhereExists(
          knex('order_items as si').whereRaw('si.order_id = o.id').where('si.name', 'ilike', like),
        ),
    );
  }
  const rows = (await q
    .orderBy([
      { column: 'o.created_at', order: 'desc' },
      { column: 'o.id', order: 'desc' },
    ])
    .limit(ACCOUNT_ORDER_LIMIT)
    .select(
      'o.id',
      'o.number',
      'o.status',
      'o.total_minor',
      'o.currency',
      'o.created_at',
      's.id as store_id',
      's.name as store_name',
      's.slug as store_slug',
      's.support_email',
    )) as {
    id: number;
    number: number;
    status: number;
    total_minor: string;
    currency: string;
    created_at: Date;
    store_id: number;
    store_name: string;
    store_slug: string;
    support_email: string | null;
  }[];
  if (rows.length === 0) return [];
  const orderIds = rows.map((r) => r.id);
  const items = (await knex('order_items')
    .whereIn('order_id', orderIds)
    .orderBy('id')
    .select('id', 'order_id', 'product_id', 'name', 'quantity', 'total_minor')) as {
    id: number;
    order_id: number;
    product_id: number | null;
    name: string;
    quantity: number;
    total_minor: string;
  }[];
  const paidOrders = new Set(rows.filter((r) => GOODS_STATUSES.includes(Number(r.status))).map((r) => r.id));
  const paidItemIds = items.filter((i) => paidOrders.has(i.order_id)).map((i) => i.id);
  const codes = (await knex('product_codes')
    .whereIn('order_item_id', paidItemIds)
    .orderBy('id')
    .select('order_item_id', 'code')) as { order_item_id: number; code: string }[];
  const keys = await accountKeys(knex, paidItemIds);
  const licenses = await licensesOf(knex, paidItemIds);
  const reviews = (await knex('reviews')
    .where('buyer', `${identity.kind}:${identity.value}`)
    .select('product_id', 'rating', 'comment', 'published')) as {
    product_id: number;
    rating: number;
    comment: string | null;
    published: boolean;
  }[];
  // One statement each for every order's invoice or receipt and every paid item's files (not one per
  // order and per item: docs/performance.md, "The buyer's account").
  const [documents, downloads] = await Promise.all([
    documentLinks(knex, { appSecret: deps.appSecret, publicBaseUrl: deps.config.publicBaseUrl }, orderIds),
    downloadLinksForItems(deps, paidItemIds),
  ]);
  const out: AccountOrder[] = [];
  for (const r of rows) {
    const paid = paidOrders.has(r.id);
    const own = items.filter((i) => i.order_id === r.id);
    out.push({
      id: r.id,
      number: Number(r.number),
      status: Number(r.status),
      total_minor: Number(r.total_minor),
      currency: r.currency,
      created_at: r.created_at,
      store: { id: r.store_id, name: r.store_name, slug: r.store_slug, support_email: r.support_email },
      document: documents.get(r.id) ?? null,
      items: own.map((i) => {
        const review = reviews.find((v) => v.product_id === i.product_id);
        return {
          id: i.id,
          product_id: i.product_id,
          name: i.name,
          quantity: Number(i.quantity),
          total_minor: Number(i.total_minor),
          codes: paid ? codes.filter((c) => c.order_item_id === i.id).map((c) => c.code) : [],
          keys: paid ? (keys.get(i.id) ?? []) : [],
          licenses: paid ? licenses.filter((l) => l.order_item_id === i.id) : [],
          downloads: paid ? (downloads.get(i.id) ?? []) : [],
          reviewable: paid && i.product_id !== null,
          review: review
            ? {
                rating: Number(review.rating),
                comment: review.comment,
                published: Boolean(review.published),
              }
            : null,
        };
      }),
    });
  }
  return out;
}

async function licensesOf(
  knex: Knex,
  itemIds: number[],
): Promise<(AccountLicense & { order_item_id: number })[]> {
  if (itemIds.length === 0) return [];
  const rows = (await knex('licenses as l')
    .leftJoin('product_plans as pp', 'pp.id', 'l.plan_id')
    .whereIn('l.order_item_id', itemIds)
    .whereNot('l.status', 'revoked')
    .orderBy([{ column: 'l.unit' }, { column: 'l.id' }])
    .select(
      'l.id',
      'l.order_item_id',
      'l.key',
      'l.status',
      'l.lock_type',
      'l.max_activations',
      'l.expires_at',
      'pp.name as plan_name',
    )) as (Omit<AccountLicense, 'activations'> & { order_item_id: number })[];
  const activations = (await knex('license_activations')
    .whereIn(
      'license_id',
      rows.map((r) => r.id),
    )
    .orderBy('id')
    .select('id', 'license_id', 'hint', 'created_at', 'last_seen_at')) as {
    id: number;
    license_id: number;
    hint: string | null;
    created_at: Date;
    last_seen_at: Date;
  }[];
  return rows.map((r) => ({
    ...r,
    max_activations: Number(r.max_activations),
    activations: activations
      .filter((a) => a.license_id === r.id)
      .map((a) => ({ id: a.id, hint: a.hint, first_seen_at: a.created_at, last_seen_at: a.last_seen_at })),
  }));
}

/** The buyer's subscriptions (from their orders), live ones first. */
export async function accountSubscriptions(
  knex: Knex,
  identity: BuyerIdentity,
): Promise<AccountSubscription[]> {
  const rows = (await whereBuyerOwns(
    knex('subscriptions as sub').join('orders as o', 'o.id', 'sub.order_id'),
    identity,
  )
    .join('stores as s', 's.id', 'sub.store_id')
    .join('products as p', 'p.id', 'sub.product_id')
    .join('product_plans as pp', 'pp.id', 'sub.plan_id')
    .orderByRaw("case when sub.status in ('active', 'past_due') then 0 else 1 end, sub.id desc")
    .limit(100)
    .select(
      'sub.id',
      'sub.status',
      'sub.cancel_at_period_end',
      'sub.current_period_end',
      'sub.price_minor',
      'sub.currency',
      'sub.next_price_minor',
      'sub.next_terms_from',
      'sub.order_id',
      'sub.provider',
      'p.name as product_name',
      'pp.name as plan_name',
      'pp.price_minor as plan_price_minor',
      's.name as store_name',
      's.currency as store_currency',
    )) as Record<string, unknown>[];
  const ids = rows.map((r) => Number(r.id));
  const renewals = ids.length
    ? ((await knex('subscription_renewals as sr')
        .leftJoin('orders as ro', 'ro.id', 'sr.order_id')
        .whereIn('sr.subscription_id', ids)
        .orderBy('sr.id', 'desc')
        .select(
          'sr.subscription_id',
          'sr.order_id',
          'ro.number as order_number',
          'sr.created_at',
          'sr.status',
        )) as {
        subscription_id: number;
        order_id: number | null;
        order_number: number | null;
        created_at: Date;
        status: string;
      }[])
    : [];
  const notices = ids.length
    ? ((await knex('subscription_price_notices')
        .whereIn('subscription_id', ids)
        .orderBy('id', 'desc')
        .select('subscription_id', 'to_price_minor', 'accepted_at')) as {
        subscription_id: number;
        to_price_minor: string;
        accepted_at: Date | null;
      }[])
    : [];
  return rows.map((r) => ({
    id: Number(r.id),
    provider: (r.provider as string | null) ?? null,
    price_notice: (() => {
      const n = notices.find(
        (x) =>
          x.subscription_id === Number(r.id) &&
          r.next_price_minor !== null &&
          Number(x.to_price_minor) === Number(r.next_price_minor),
      );
      return n ? { accepted_at: n.accepted_at } : null;
    })(),
    status: String(r.status),
    cancel_at_period_end: Boolean(r.cancel_at_period_end),
    current_period_end: (r.current_period_end as Date | null) ?? null,
    product_name: String(r.product_name),
    plan_name: String(r.plan_name),
    price_minor: Number(r.price_minor ?? r.plan_price_minor),
    currency: String(r.currency ?? r.store_currency),
    next_price_minor:
      r.next_price_minor === null || r.next_price_minor === undefined ? null : Number(r.next_price_minor),
    next_terms_from: (r.next_terms_from as Date | null) ?? null,
    store_name: String(r.store_name),
    order_id: r.order_id === null ? null : Number(r.order_id),
    renewals: renewals
      .filter((n) => n.subscription_id === Number(r.id))
      .map((n) => ({
        order_id: n.order_id,
        order_number: n.order_number === null ? null : Number(n.order_number),
        created_at: n.created_at,
        status: n.status,
      })),
  }));
}
