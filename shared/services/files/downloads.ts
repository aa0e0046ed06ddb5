import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { type Actor, recordAudit } from '../audit';
import { DOWNLOADABLE_STATUSES, downloadLinksFor, entitledFiles } from './entitlement';
import { readDownloadToken } from './links';

/**
 * A download (docs/downloads.md): the address's signature, the order's status at this moment (a refunded
 * or cancelled order's addresses stop at once), the file's entitlement and the product's `download_limit`,
 * judged on the order item's locked row so that concurrent downloads cannot pass the limit together.
 *
 * A download from the first byte counts (200, a 206 from byte 0, or the redirect to the bucket); a resume
 * (`Range` from a later byte) does not, and is served while downloads are left or, once the last one was
 * taken, within RESUME_HOURS of it. Every full copy needs byte 0, so ranges cannot be stitched into
 * uncounted copies.
 */

export const RESUME_HOURS = 24;

export type Refusal = 'forged' | 'not_paid' | 'cancelled' | 'refunded' | 'limit' | 'gone';

/** 403 where the request itself is refused, 410 where the address was good and is no longer. */
export const REFUSAL_STATUS: Record<Refusal, 403 | 410> = {
  forged: 403,
  not_paid: 403,
  limit: 403,
  cancelled: 410,
  refunded: 410,
  gone: 410,
};

export type ByteRange = { start: number; end: number };

/** `bytes=N-`, `bytes=N-M` or `bytes=-N` of a file of `size` bytes; null: no range (the whole file). */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d{0,16})-(\d{0,16})$/.exec(header.trim());
  // RFC 9110: a Range the server does not understand is ignored (the whole file, counted).
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(size - suffix, 0);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export type DownloadVerdict =
  | {
      ok: true;
      file: { id: number; name: string; size: number; storage_driver: 'local' | 's3'; storage_key: string };
      range: ByteRange | 'unsatisfiable' | null;
      downloadsLeft: number | null;
    }
  | { ok: false; refusal: Refusal };

export async function authorizeDownload(
  deps: TxDeps & { appSecret: string; appSecretPrevious: readonly string[] },
  token: string,
  request: { ip: string; range: string | undefined; head?: boolean },
): Promise<DownloadVerdict> {
  const named = readDownloadToken([deps.appSecret, ...deps.appSecretPrevious], token);
  if (!named) return { ok: false, refusal: 'forged' };
  return deps.tx(async ({ trx }) => {
    const item = (await trx('order_items as oi')
      .join('orders as o', 'o.id', 'oi.order_id')
      .where('oi.id', named.orderItemId)
      .forUpdate('oi')
      .first('oi.id', 'oi.product_id', 'o.status', 'o.store_id', 'o.created_at')) as
      | { id: number; product_id: number | null; status: number; store_id: number; created_at: Date }
      | undefined;
    if (!item || item.product_id === null) return { ok: false, refusal: 'gone' } as const;
    const status = Number(item.status);
    if (status === 5) return { ok: false, refusal: 'cancelled' } as const;
    if (status === 6) return { ok: false, refusal: 'refunded' } as const;
    if (!(DOWNLOADABLE_STATUSES as readonly number[]).includes(status))
      return { ok: false, refusal: 'not_paid' } as const;
    const file = (await entitledFiles(
      trx('product_files as pf').where({ 'pf.id': named.fileId, 'pf.product_id': item.product_id }),
      item.created_at.toISOString(),
    ).first('pf.id', 'pf.name', 'pf.size', 'pf.storage_driver', 'pf.storage_key')) as
      | { id: number; name: string; size: string; storage_driver: 'local' | 's3'; storage_key: string }
      | undefined;
    if (!file) return { ok: false, refusal: 'gone' } as const;
    const { download_limit: limit } = (await trx('products')
      .where('id', item.product_id)
      .first('download_limit')) as { download_limit: number };
    const [used] = (await trx('file_downloads')
      .where({ order_item_id: item.id, file_id: file.id, counted: true })
      .select(
        trx.raw('count(*)::int as n'),
        trx.raw('coalesce(max(created_at) > now() - make_interval(hours => ?), false) as recent', [
          RESUME_HOURS,
        ]),
      )) as { n: number; recent: boolean }[];
    const count = used!.n;
    const size = Number(file.size);
    const range = parseRange(request.range, size);
    const counts = range === null || (range !== 'unsatisfiable' && range.start === 0);
    if (limit > 0) {
      const resumesLast = !counts && count === limit && used!.recent;
      if (count >= limit && !resumesLast) return { ok: false, refusal: 'limit' } as const;
    }
    const fileOut = { ...file, size };
    // A HEAD moves no bytes: it neither counts nor shows in the history.
    if (range === 'unsatisfiable' || request.head)
      return {
        ok: true,
        file: fileOut,
        range,
        downloadsLeft: limit > 0 ? Math.max(limit - count, 0) : null,
      } as const;
    await trx('file_downloads').insert({
      store_id: item.store_id,
      order_item_id: item.id,
      file_id: file.id,
      ip: request.ip.slice(0, 45),
      counted: counts,
    });
    const after = count + (counts ? 1 : 0);
    return {
      ok: true,
      file: fileOut,
      range,
      downloadsLeft: limit > 0 ? Math.max(limit - after, 0) : null,
    } as const;
  });
}

export interface ItemDownloads {
  order_item_id: number;
  product_id: number | null;
  name: string;
  download_limit: number;
  files: {
    file_id: number;
    name: string;
    size: number;
    url: string;
    downloads_counted: number;
    downloads: { at: string; ip: string; counted: boolean }[];
  }[];
}

async function orderOfStore(knex: Knex, storeId: number, orderId: number): Promise<void> {
  const order = await knex('orders').where({ id: orderId, store_id: storeId }).first('id');
  if (!order) throw new NotFoundError('Order not found');
}

/** What the merchant sees of an order's downloads: per item and file, each download (when, from which IP). */
export async function orderDownloads(
  deps: { knex: Knex; appSecret: string; config: { publicBaseUrl: string } },
  storeId: number,
  orderId: number,
): Promise<ItemDownloads[]> {
  await orderOfStore(deps.knex, storeId, orderId);
  const items = (await deps
    .knex('order_items as oi')
    .leftJoin('products as p', 'p.id', 'oi.product_id')
    .where('oi.order_id', orderId)
    .orderBy('oi.id')
    .select('oi.id', 'oi.product_id', 'oi.name', 'p.download_limit')) as {
    id: number;
    product_id: number | null;
    name: string;
    download_limit: number | null;
  }[];
  const events = (await deps
    .knex('file_downloads as d')
    .join('product_files as pf', 'pf.id', 'd.file_id')
    .whereIn(
      'd.order_item_id',
      items.map((i) => i.id),
    )
    .orderBy('d.id')
    .select('d.order_item_id', 'd.file_id', 'pf.name', 'pf.size', 'd.ip', 'd.counted', 'd.created_at')) as {
    order_item_id: number;
    file_id: number;
    name: string;
    size: string;
    ip: string;
    counted: boolean;
    created_at: Date;
  }[];
  const result: ItemDownloads[] = [];
  for (const item of items) {
    const links = await downloadLinksFor(deps, item.id);
    const files = new Map<number, ItemDownloads['files'][number]>();
    for (const link of links) files.set(link.file_id, { ...link, downloads_counted: 0, downloads: [] });
    for (const e of events.filter((d) => d.order_item_id === item.id)) {
      let file = files.get(e.file_id);
      if (!file) {
        // A file the buyer downloaded but no longer gets (the order refunded, the file withdrawn).
        file = {
          file_id: e.file_id,
          name: e.name,
          size: Number(e.size),
          url: '',
          downloads_counted: 0,
          downloads: [],
        };
        files.set(e.file_id, file);
      }
      if (e.counted) file.downloads_counted += 1;
      file.downloads.push({ at: e.created_at.toISOString(), ip: e.ip, counted: e.counted });
    }
    result.push({
      order_item_id: item.id,
      product_id: item.product_id,
      name: item.name,
      download_limit: item.download_limit ?? 0,
      files: [...files.values()],
    });
  }
  return result;
}

/** Gives a buyer their downloads again: the item's counted downloads stop counting (the history stays). */
export async function resetDownloads(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  orderId: number,
  orderItemId: number,
): Promise<{ order_item_id: number; reset: number }> {
  await orderOfStore(deps.knex, actor.storeId, orderId);
  const item = await deps.knex('order_items').where({ id: orderItemId, order_id: orderId }).first('id');
  if (!item) throw ValidationError.field('order_item_id', 'is not an item of this order');
  return deps.tx(async ({ trx }) => {
    const reset = await trx('file_downloads')
      .where({ order_item_id: orderItemId, counted: true })
      .update({ counted: false });
    await recordAudit(
      trx,
      actor,
      'order.downloads_reset',
      { type: 'order', id: orderId },
      {
        [`items.${orderItemId}.downloads_counted`]: { from: reset, to: 0 },
      },
    );
    return { order_item_id: orderItemId, reset };
  });
}
