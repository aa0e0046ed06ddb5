import Joi from 'joi';
import { REVIEW_SORTS, ReviewFilters, ReviewSort, ReviewType } from '../../../shared/services/reviews';
import { flag, id, page, perPage } from '../schemas';

const type = Joi.string().valid('store', 'product');
const rating = Joi.number().integer().min(1).max(5);

export const recentQuery = Joi.object({ type, limit: Joi.number().integer().min(1).max(50).default(10) });
export interface RecentQuery {
  type?: ReviewType;
  limit: number;
}

export const listQuery = Joi.object({
  page,
  per_page: perPage(15),
  type,
  product_id: id,
  rating,
  min_rating: rating,
  has_comment: flag,
  sort: Joi.string()
    .valid(...REVIEW_SORTS)
    .default('newest'),
});
export type ListQuery = ReviewFilters & { sort: ReviewSort; page: number; per_page: number };

export const statsQuery = Joi.object({ type, product_id: id });
export interface StatsQuery {
  type?: ReviewType;
  product_id?: number;
}
