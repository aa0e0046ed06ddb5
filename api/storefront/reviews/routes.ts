import Joi from 'joi';
import {
  listReviews,
  recentReviews,
  REVIEW_SORTS,
  ReviewSort,
  reviewStats,
  ReviewType,
} from '../../../shared/services/reviews';
import { storefrontGuards } from '../../guards';
import { id, pagination } from '../../http/fields';
import { defineRoute } from '../../http/route';
import { storefrontOk } from '../../openapi/components';
import { pageOf, review, reviewStats as statsSchema } from '../responses';

/** Public reviews: recent (4 stars and up), the paginated list, and statistics. Published reviews only. */

const type = Joi.string()
  .valid('store', 'product')
  .description('store: order-level reviews (no product); product: product reviews.');
const rating = Joi.number().integer().min(1).max(5);

interface ListQuery {
  page: number;
  per_page: number;
  type?: ReviewType;
  product_id?: number;
  rating?: number;
  min_rating?: number;
  has_comment?: boolean;
  sort: ReviewSort;
}

export const storefrontReviewRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/reviews/recent',
    interface: 'storefront',
    operationId: 'storefrontRecentReviews',
    summary: 'Recent reviews of 4 stars and up',
    guards: storefrontGuards,
    request: {
      query: Joi.object<{ type?: ReviewType; limit: number }, true>({
        type,
        limit: Joi.number().integer().min(1).max(50).default(10),
      }),
    },
    responses: { 200: storefrontOk('The reviews, newest first.', { type: 'array', items: review }) },
    handler: (ctx, { query }) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) => recentReviews(knex, ctx.state.store!, query)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/reviews/stats',
    interface: 'storefront',
    operationId: 'storefrontReviewStats',
    summary: 'Review statistics',
    description:
      'Count, average and `rating_distribution` (counts keyed "1" to "5") of the store’s published reviews, or ' +
      'of one product’s with `product_id` (echoed back), or of one `type`.',
    guards: storefrontGuards,
    request: {
      query: Joi.object<{ type?: ReviewType; product_id?: number }, true>({ type, product_id: id() }),
    },
    responses: { 200: storefrontOk('The statistics.', statsSchema) },
    handler: (ctx, { query }) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) => reviewStats(knex, ctx.state.store!, query)),
  }),
  defineRoute({
    method: 'get',
    path: '/api/reviews',
    interface: 'storefront',
    operationId: 'storefrontListReviews',
    summary: 'Published reviews',
    description:
      'Filters: `type`, `product_id`, `rating` (exact), `min_rating`, `has_comment`. Sorts: `newest` (default), ' +
      '`oldest`, `highest`, `lowest`. Paginated with `page` and `per_page`; `meta.total` counts every match.',
    guards: storefrontGuards,
    request: {
      query: Joi.object<ListQuery, true>({
        ...pagination,
        type,
        product_id: id(),
        rating,
        min_rating: rating,
        has_comment: Joi.boolean().truthy('1').falsy('0'),
        sort: Joi.string()
          .valid(...REVIEW_SORTS)
          .default('newest'),
      }),
    },
    responses: { 200: storefrontOk('A page of reviews.', pageOf(review)) },
    handler: (ctx, { query }) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) => listReviews(knex, ctx.state.store!, query)),
  }),
];
