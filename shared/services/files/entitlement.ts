import type { Knex } from 'knex';
import { downloadToken } from './links';

/**
 * Which files an order item gets (docs/downloads.md), judged against the time the order was placed:
 * - a file taken off the product after the order was placed stays the buyer's;
 * - a replacement (a new version) goes to orders placed after it, while earlier buyers keep the version
 *   they got, unless the merchant chose "update for everyone": then the old version is withdrawn from
 *   every buyer and the new one given to all;
 * - a file added to the product (not a replacement) goes to past buyers as well.
 *
 * Only paid orders (In progress or Completed) have files; the status is read at download time.
 */

export const DOWNLOADABLE_STATUSES = [3, 4] as const;

/** Restricts `product_files as pf` to the files of an order placed at `placedAt` (a SQL expression). */
export function entitledFiles(query: Knex.QueryBuilder, placedAt: Knex.Raw | string): Knex.QueryBuilder {
  return query
    .where('pf.withdrawn', false)
    .where((q) => q.whereNull('pf.removed_at').orWhere('pf.removed_at', '>', placedAt))
    .where((q) =>
      q.whereNull('pf.replaces_id').orWhere('pf.for_everyone', true).orWhere('pf.created_at', '<=', placedAt),
    );
}

export interface DownloadLink {
  file_id: number;
  name: string;
  size: number;
  url: string;
}

/**
 * The download addresses of a paid order item, one per file (none for an unpaid, cancelled or refunded
 * order). The delivery message, the buyer's account page and the Merchant API list them from here.
 */
export async function downloadLinksFor(
  deps: { knex: Knex; appSecret: string; config: { publicBaseUrl: string } },
  orderItemId: number,
): Promise<DownloadLink[]> {
  const item = (await deps
    .knex('order_items as oi')
    .join('orders as o', 'o.id', 'oi.order_id')
    .where('oi.id', orderItemId)
    .first('oi.id', 'oi.product_id', 'o.status', 'o.created_at')) as
    { id: number; product_id: number | null; status: number; created_at: Date } | undefined;
  if (!item || item.product_id === null) return [];
  if (!(DOWNLOADABLE_STATUSES as readonly number[]).includes(Number(item.status))) return [];
  const files = (await entitledFiles(
    deps.knex('product_files as pf').where('pf.product_id', item.product_id),
    item.created_at.toISOString(),
  )
    .orderBy('pf.id')
    .select('pf.id', 'pf.name', 'pf.size')) as { id: number; name: string; size: string }[];
  return files.map((f) => ({
    file_id: f.id,
    name: f.name,
    size: Number(f.size),
    url: `${deps.config.publicBaseUrl}/downloads/${downloadToken(deps.appSecret, item.id, f.id)}`,
  }));
}

/**
 * downloadLinksFor of many order items in one statement (the buyer's account page): the same rule, each
 * item's files judged against its own order's placing time. Items without files are absent.
 */
export async function downloadLinksForItems(
  deps: { knex: Knex; appSecret: string; config: { publicBaseUrl: string } },
  orderItemIds: readonly number[],
): Promise<Map<number, DownloadLink[]>> {
  const out = new Map<number, DownloadLink[]>();
  if (orderItemIds.length === 0) return out;
  const rows = (await entitledFiles(
    deps
      .knex('order_items as oi')
      .join('orders as o', 'o.id', 'oi.order_id')
      .join('product_files as pf', 'pf.product_id', 'oi.product_id')
      .whereIn('oi.id', orderItemIds)
      .whereIn('o.status', DOWNLOADABLE_STATUSES),
    deps.knex.raw('o.created_at'),
  )
    .orderBy([{ column: 'oi.id' }, { column: 'pf.id' }])
    .select('oi.id as item_id', 'pf.id', 'pf.name', 'pf.size')) as {
    item_id: number;
    id: number;
    name: string;
    size: string;
  }[];
  for (const f of rows) {
    const itemId = Number(f.item_id);
    const links = out.get(itemId) ?? [];
    links.push({
      file_id: f.id,
      name: f.name,
      size: Number(f.size),
      url: `${deps.config.publicBaseUrl}/downloads/${downloadToken(deps.appSecret, itemId, f.id)}`,
    });
    out.set(itemId, links);
  }
  return out;
}
