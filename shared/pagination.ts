import type { Knex } from 'knex';
import { pageMeta, type PageMeta } from './views';

/**
 * Merchant lists (docs/operations.md): `page` (1-based) and `per_page`, 15 by default, at most 100.
 * Every list answers its rows with `meta` {page, per_page, total, last_page}.
 */
export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;
/** Far beyond any real list; keeps OFFSET bounded. */
export const MAX_PAGE = 100_000;

export interface PageRequest {
  page: number;
  per_page: number;
}

export type { PageMeta } from './views';

export interface Paged<T> {
  items: T[];
  meta: PageMeta;
}

/**
 * Runs `query` for one page and a count of the same rows (the query must not be ordered yet for the
 * count), or `count` when the caller has a cheaper exact one (the order list: the order rollups).
 */
export async function paginate<Row>(
  base: Knex.QueryBuilder,
  page: PageRequest,
  order: (q: Knex.QueryBuilder) => Knex.QueryBuilder,
  count?: () => Promise<number>,
): Promise<{ rows: Row[]; meta: PageMeta }> {
  const total = count
    ? await count()
    : Number((await base.clone().clearSelect().clearOrder().count<{ n: number }[]>('* as n'))[0]?.n ?? 0);
  const rows = (await order(base.clone())
    .limit(page.per_page)
    .offset((page.page - 1) * page.per_page)) as Row[];
  return {
    rows,
    meta: pageMeta(page, total),
  };
}
