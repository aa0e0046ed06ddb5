/**
 * Small pieces every answer is made of, in one place: times as ISO 8601 strings and the page meta of a
 * list (docs/operations.md: `page` 1-based, `per_page`, `total`, `last_page`).
 */
import { type Infer, object, type SchemaObject } from './json-schema';

/** A timestamp column as the API writes it (ISO 8601, UTC); null stays null. */
export function iso(d: unknown): string | null {
  return d ? new Date(d as Date | string | number).toISOString() : null;
}

const count = { type: 'integer' } as const satisfies SchemaObject;

/** The `meta` of a page, as the OpenAPI document shows it (api/merchant/responses/) and as its type. */
export const pageMetaSchema = object({ page: count, per_page: count, total: count, last_page: count });

export type PageMeta = Infer<typeof pageMetaSchema>;

/** The `meta` of one page of a list of `total` rows (an empty list has one, empty, page). */
export function pageMeta(page: { page: number; per_page: number }, total: number): PageMeta {
  return {
    page: page.page,
    per_page: page.per_page,
    total,
    last_page: Math.max(1, Math.ceil(total / page.per_page)),
  };
}
