import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { pageMeta } from '../../views';
import type { Page } from '../catalogue/storefront';

/**
 * Published reviews of a store, public (spec: Reviews; the operator contract (docs/operations.md)). A review with a product is a
 * product review; one without (`product_id` null) is an order-level store review. The reviewer is shown by
 * first name and initial ("Sara A."), never by phone or e-mail. Unpublished reviews are never shown or
 * counted.
 */

export type ReviewType = 'store' | 'product';
export const REVIEW_SORTS = ['newest', 'oldest', 'highest', 'lowest'] as const;
export type ReviewSort = (typeof REVIEW_SORTS)[number];
/** Spec: "recent reviews rated 4 or more stars". */
export const RECENT_MIN_RATING = 4;

export interface ReviewView {
  id: number;
  rating: number;
  comment: string | null;
  product_id: number | null;
  created_at: string;
  type: ReviewType;
  reviewer: { name: string };
  product: { id: number; name: string; slug: string } | null;
  /** Written from the buyer's account by someone who bought the product (docs/account.md). */
  verified_purchase: boolean;
  /** The store's public answer, or null. */
  reply: string | null;
}

interface ReviewRow {
  id: number;
  rating: number;
  comment: string | null;
  product_id: number | null;
  created_at: Date;
  first_name: string | null;
  last_name: string | null;
  product_name: string | null;
  product_slug: string | null;
  verified: boolean;
  reply: string | null;
}

/** "Sara A.": the first name and the initial of the last; "Anonymous" when the customer is gone. */
export function displayName(firstName: string | null, lastName: string | null): string {
  const first = (firstName ?? '').trim();
  const initial = Array.from((lastName ?? '').trim())[0];
  if (!first) return initial ? `${initial.toUpperCase()}.` : 'Anonymous';
  return initial ? `${first} ${initial.toUpperCase()}.` : first;
}

function view(row: ReviewRow): ReviewView {
  return {
    id: row.id,
    rating: Number(row.rating),
    comment: row.comment,
    product_id: row.product_id,
    created_at: new Date(row.created_at).toISOString(),
    type: row.product_id === null ? 'store' : 'product',
    reviewer: { name: displayName(row.first_name, row.last_name) },
    product:
      row.product_id === null
        ? null
        : { id: row.product_id, name: row.product_name ?? '', slug: row.product_slug ?? '' },
    verified_purchase: Boolean(row.verified),
    reply: row.reply ?? null,
  };
}

export interface ReviewFilters {
  type?: ReviewType;
  product_id?: number;
  rating?: number;
  min_rating?: number;
  /** true: only reviews with a comment; false: only those without. */
  has_comment?: boolean;
}

function published(knex: Knex, store: Store, filters: ReviewFilters): Knex.QueryBuilder {
  const q = knex('reviews as r').where('r.store_id', store.id).andWhere('r.published', true);
  if (filters.type === 'store') q.whereNull('r.product_id');
  if (filters.type === 'product') q.whereNotNull('r.product_id');
  if (filters.product_id !== undefined) q.andWhere('r.product_id', filters.product_id);
  if (filters.rating !== undefined) q.andWhere('r.rating', filters.rating);
  if (filters.min_rating !== undefined) q.andWhere('r.rating', '>=', filters.min_rating);
  if (filters.has_comment === true) q.whereRaw("coalesce(btrim(r.comment), '') <> ''");
  if (filters.has_comment === false) q.whereRaw("coalesce(btrim(r.comment), '') = ''");
  return q;
}

function withPeople(q: Knex.QueryBuilder): Knex.QueryBuilder {
  return q
    .leftJoin('customers as c', 'c.id', 'r.customer_id')
    .leftJoin('products as p', 'p.id', 'r.product_id')
    .select(
      'r.id',
      'r.rating',
      'r.comment',
      'r.product_id',
      'r.created_at',
      'c.first_name',
      'c.last_name',
      'p.name as product_name',
      'p.slug as product_slug',
      'r.verified',
      'r.reply',
    );
}

const ORDER: Record<ReviewSort, { column: string; order: 'asc' | 'desc' }[]> = {
  newest: [
    { column: 'r.created_at', order: 'desc' },
    { column: 'r.id', order: 'desc' },
  ],
  oldest: [
    { column: 'r.created_at', order: 'asc' },
    { column: 'r.id', order: 'asc' },
  ],
  highest: [
    { column: 'r.rating', order: 'desc' },
    { column: 'r.created_at', order: 'desc' },
    { column: 'r.id', order: 'desc' },
  ],
  lowest: [
    { column: 'r.rating', order: 'asc' },
    { column: 'r.created_at', order: 'desc' },
    { column: 'r.id', order: 'desc' },
  ],
};

/** GET /api/reviews/recent: the newest reviews of 4 stars and up. */
export async function recentReviews(
  knex: Knex,
  store: Store,
  opts: { type?: ReviewType; limit: number },
): Promise<ReviewView[]> {
  const rows = await withPeople(published(knex, store, { type: opts.type, min_rating: RECENT_MIN_RATING }))
    .orderBy(ORDER.newest)
    .limit(opts.limit);
  return (rows as ReviewRow[]).map(view);
}

/** GET /api/reviews: published reviews, filtered, sorted and paginated. */
export async function listReviews(
  knex: Knex,
  store: Store,
  query: ReviewFilters & { sort: ReviewSort; page: number; per_page: number },
): Promise<Page<ReviewView>> {
  const base = published(knex, store, query);
  const counted = await base.clone().count<{ count: string }[]>({ count: '*' }).first();
  const rows = await withPeople(base)
    .orderBy(ORDER[query.sort])
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page);
  return {
    items: (rows as ReviewRow[]).map(view),
    meta: pageMeta(query, Number(counted?.count ?? 0)),
  };
}

export interface ReviewStats {
  product_id: number | null;
  count: number;
  /** Mean rating rounded to two decimals; 0 when there are no reviews. */
  average: number;
  /** Review counts keyed by star count "1" to "5". */
  rating_distribution: Record<'1' | '2' | '3' | '4' | '5', number>;
}

/** GET /api/reviews/stats: for the store's published reviews, or one product's with `product_id`. */
export async function reviewStats(
  knex: Knex,
  store: Store,
  filters: { type?: ReviewType; product_id?: number },
): Promise<ReviewStats> {
  const rows = await published(knex, store, filters)
    .groupBy('r.rating')
    .select<{ rating: number; count: string }[]>('r.rating', knex.raw('count(*) as count'));
  const distribution: ReviewStats['rating_distribution'] = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  let count = 0;
  let sum = 0;
  for (const row of rows) {
    const stars = String(row.rating) as keyof ReviewStats['rating_distribution'];
    const n = Number(row.count);
    if (stars in distribution) distribution[stars] = n;
    count += n;
    sum += n * Number(row.rating);
  }
  return {
    product_id: filters.product_id ?? null,
    count,
    average: count === 0 ? 0 : Math.round((sum / count) * 100) / 100,
    rating_distribution: distribution,
  };
}
