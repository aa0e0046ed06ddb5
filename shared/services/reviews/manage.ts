import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { noteStoreContentChangedOn } from '../catalogue/cache';
import type { TxDeps } from '../../unit-of-work';

/**
 * Review moderation: a review a buyer leaves is hidden until the store publishes it (the Storefront API
 * shows published ones only). The dashboard lists them, waiting ones first, and publishes or hides them.
 */
export interface ReviewRow {
  id: number;
  rating: number;
  comment: string | null;
  published: boolean;
  product_name: string | null;
  customer_name: string;
  order_id: number | null;
  created_at: Date;
  verified: boolean;
  reply: string | null;
}

export async function listStoreReviews(
  knex: Knex,
  storeId: number,
  filter: 'waiting' | 'published' | 'all',
  page: number,
  perPage = 20,
): Promise<{ items: ReviewRow[]; total: number; lastPage: number }> {
  const base = knex('reviews as r')
    .leftJoin('products as p', 'p.id', 'r.product_id')
    .leftJoin('customers as c', 'c.id', 'r.customer_id')
    .where('r.store_id', storeId);
  if (filter === 'waiting') base.where('r.published', false);
  if (filter === 'published') base.where('r.published', true);
  const [{ n }] = await base.clone().count<{ n: string }[]>('* as n');
  const total = Number(n);
  const rows = await base
    .clone()
    .select(
      'r.id',
      'r.rating',
      'r.comment',
      'r.published',
      'p.name as product_name',
      'c.first_name',
      'c.last_name',
      'r.order_id',
      'r.created_at',
      'r.verified',
      'r.reply',
    )
    .orderBy([
      { column: 'r.published', order: 'asc' },
      { column: 'r.id', order: 'desc' },
    ])
    .limit(perPage)
    .offset((page - 1) * perPage);
  return {
    items: rows.map((r) => ({
      id: Number(r.id),
      rating: Number(r.rating),
      comment: r.comment ?? null,
      published: Boolean(r.published),
      product_name: r.product_name ?? null,
      customer_name: [r.first_name, r.last_name].filter(Boolean).join(' '),
      order_id: r.order_id === null ? null : Number(r.order_id),
      created_at: new Date(r.created_at),
      verified: Boolean(r.verified),
      reply: r.reply ?? null,
    })),
    total,
    lastPage: Math.max(1, Math.ceil(total / perPage)),
  };
}

/** Publishes or hides one review of the store; the store's cached answers (ratings) are renewed. */
export async function setReviewPublished(
  deps: TxDeps,
  storeId: number,
  reviewId: number,
  published: boolean,
): Promise<void> {
  await deps.tx(async (uow) => {
    const n = await uow
      .trx('reviews')
      .where({ id: reviewId, store_id: storeId })
      .update({ published, updated_at: new Date() });
    if (n === 0) throw new NotFoundError('Review not found');
    noteStoreContentChangedOn(uow, storeId);
  });
}

export const REVIEW_REPLY_MAX = 2000;

/** The store's public answer to a review (empty: withdrawn); shown under it wherever it is published. */
export async function setReviewReply(
  deps: TxDeps,
  storeId: number,
  reviewId: number,
  reply: string,
): Promise<void> {
  const text = reply.trim().slice(0, REVIEW_REPLY_MAX);
  await deps.tx(async (uow) => {
    const n = await uow
      .trx('reviews')
      .where({ id: reviewId, store_id: storeId })
      .update({ reply: text || null, replied_at: text ? new Date() : null, updated_at: new Date() });
    if (n === 0) throw new NotFoundError('Review not found');
    noteStoreContentChangedOn(uow, storeId);
  });
}
