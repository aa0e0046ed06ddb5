import Joi from 'joi';
import type { Paged } from '../../shared/services/merchant/pagination';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE, PageMeta } from '../../shared/services/merchant/pagination';

/** What every Merchant API route shares: ids, pagination, and the list shape. */

export const id = Joi.number().integer().min(1).max(2_147_483_647);

export const idParams = Joi.object({ id: id.required() });

/** `page` and `per_page` (CONTRACT section 8): 15 per page by default, at most 100. */
export const pagination = {
  page: Joi.number().integer().min(1).max(MAX_PAGE).default(1),
  per_page: Joi.number().integer().min(1).max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
};

/** A query schema that refuses parameters it does not know (an unknown filter is a 422, not ignored). */
export function query(keys: Joi.PartialSchemaMap): Joi.ObjectSchema {
  return Joi.object({ ...pagination, ...keys })
    .unknown(false)
    .messages({ 'object.unknown': '{{#label}} is not a known parameter' });
}

/**
 * A page as the Merchant API answers it: the rows in `data`, the totals in `meta`, plus the paginator
 * fields Laravel clients read (current_page, per_page, total, last_page).
 */
export function pageBody<T>(paged: Paged<T> | { items: T[]; meta: PageMeta }): Record<string, unknown> {
  return {
    data: paged.items,
    meta: paged.meta,
    current_page: paged.meta.page,
    per_page: paged.meta.per_page,
    total: paged.meta.total,
    last_page: paged.meta.last_page,
  };
}
