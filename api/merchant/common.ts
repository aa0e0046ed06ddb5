import Joi from 'joi';
import { id, pagination } from '../http/fields';
import { ValidationError } from '../../shared/errors';
import type { Actor } from '../../shared/services/audit';
import type { Paged, PageMeta, PageRequest } from '../../shared/pagination';
import type { AppContext } from '../context';
import { markSelfAudited } from './audit-writes';

/** What every Merchant API route shares: ids, pagination, and the list shape. */

export { id };

export const idParams = Joi.object<{ id: number }, true>({ id: id().required().description('The id.') });

/**
 * A query schema with `page` and `per_page` (docs/operations.md: 15 per page by default, at most 100) that
 * refuses parameters it does not know: an unknown filter is a 422, never silently ignored.
 */
export function listQuery<T extends object>(
  keys: Joi.PartialSchemaMap<T>,
): Joi.ObjectSchema<T & PageRequest> {
  return Joi.object<T & PageRequest>({ ...pagination, ...keys })
    .unknown(false)
    .messages({ 'object.unknown': '{{#label}} is not a known parameter' });
}

/** A query that takes no parameters at all. */
export const noQuery = Joi.object<Record<string, never>, true>({})
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });

/**
 * A page as the Merchant API answers it: the rows in `data`, the totals in `meta`, plus the paginator
 * fields Laravel clients read (current_page, per_page, total, last_page).
 */
export function pageBody<T>(paged: Paged<T> | { items: T[]; meta: PageMeta }): {
  data: T[];
  meta: PageMeta;
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
} {
  return {
    data: paged.items,
    meta: paged.meta,
    current_page: paged.meta.page,
    per_page: paged.meta.per_page,
    total: paged.meta.total,
    last_page: paged.meta.last_page,
  };
}

export const PAGINATION_NOTE =
  'Paginated: `page` (from 1) and `per_page` (1 to 100, default 15); rows in `data.data`, totals in ' +
  '`data.meta`. An unknown query parameter is a 422.';

/** Who is writing, for the audit log: the store and the token of this request. */
export function actorOf(ctx: AppContext): Actor {
  // The handler's service records this write itself, with what it changed.
  markSelfAudited(ctx);
  const token = ctx.state.merchantToken;
  return {
    storeId: ctx.state.store!.id,
    tokenId: token?.id ?? null,
    name: token ? `token:${token.name}` : 'operator',
  };
}

/**
 * `If-Match` as a product version: `3`, `"3"` or `W/"3"`; absent: undefined (last writer wins per key).
 * Anything else is a 422 naming the header.
 */
export function ifMatchVersion(ctx: AppContext): number | undefined {
  const header = ctx.get('If-Match').trim();
  if (header === '') return undefined;
  const match = /^(?:W\/)?"?(\d{1,9})"?$/.exec(header);
  if (!match) throw ValidationError.field('If-Match', 'must be the product version, e.g. "3"');
  return Number(match[1]);
}
