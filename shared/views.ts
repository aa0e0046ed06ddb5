/**
 * Small pieces every answer is made of, in one place: times as ISO 8601 strings and the page meta of a
 * list (docs/operations.md: `page` 1-based, `per_page`, `total`, `last_page`).
 */

/** A timestamp column as the API writes it (ISO 8601, UTC); null stays null. */
export function iso(d: unknown): string | null {
  return d ? new Date(d as Date | string | number).toISOString() : null;
}

export interface PageMeta {
  page: number;
  per_page: number;
  total: number;
  last_page: number;
}

/** The `meta` of one page of a list of `total` rows (an empty list has one, empty, page). */
export function pageMeta(page: { page: number; per_page: number }, total: number): PageMeta {
  return {
    page: page.page,
    per_page: page.per_page,
    total,
    last_page: Math.max(1, Math.ceil(total / page.per_page)),
  };
}
