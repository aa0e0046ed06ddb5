import crypto from 'node:crypto';
import http from 'node:http';
import type { Knex } from 'knex';
import type { Deps } from '../../../shared/deps';
import { downloadLinksFor } from '../../../shared/services/files/entitlement';
import type { TestServer } from '../../helpers/http';

/** Helpers of the product-file tests: multipart uploads over a real socket, and raw downloads. */

export const sha256Hex = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A multipart upload of `bytes` as the part `file` named `name` (fetch's FormData, a real socket). */
export async function upload(
  server: TestServer,
  token: string,
  productId: number,
  bytes: Buffer,
  name: string,
  opts: { method?: 'POST' | 'PUT'; path?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> & { data?: unknown }; text: string }> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await server.request(opts.path ?? `/shawarma/products/${productId}/files`, {
    method: opts.method ?? 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  return res;
}

/** A GET with node:http (no redirect following, any header), the body kept as bytes. */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** The order item's download addresses, pointed at the test server (they are built on PUBLIC_BASE_URL). */
export async function linksOf(
  deps: Deps,
  server: TestServer,
  orderItemId: number,
): Promise<{ file_id: number; name: string; url: string }[]> {
  const links = await downloadLinksFor(deps, orderItemId);
  return links.map((l) => ({ ...l, url: server.url + new URL(l.url).pathname }));
}

export async function downloadCount(knex: Knex, orderItemId: number): Promise<number> {
  const [row] = (await knex('file_downloads')
    .where({ order_item_id: orderItemId, counted: true })
    .count('* as n')) as { n: string }[];
  return Number(row!.n);
}
