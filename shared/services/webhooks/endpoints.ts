import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { randomToken } from '../../crypto';
import { InvalidError, NotFoundError } from '../../errors';
import { paginate, PageMeta, PageRequest } from '../../pagination';

/** A store's webhook endpoints (POST/GET/DELETE /shawarma/webhooks). */

export const MAX_ENDPOINTS_PER_STORE = 10;
export const ENDPOINT_NOT_FOUND = 'Webhook endpoint not found';

export interface EndpointView {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  created_at: string;
  deliveries: { pending: number; delivered: number; failed: number };
}

interface EndpointRow {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  created_at: Date;
}

async function viewsOf(knex: Knex, rows: EndpointRow[]): Promise<EndpointView[]> {
  const counts = rows.length
    ? await knex('merchant_webhook_deliveries')
        .whereIn(
          'endpoint_id',
          rows.map((r) => r.id),
        )
        .groupBy('endpoint_id', 'status')
        .select('endpoint_id', 'status', knex.raw('count(*)::int as n'))
    : [];
  return rows.map((r) => {
    const deliveries = { pending: 0, delivered: 0, failed: 0 };
    for (const c of counts) {
      if (Number(c.endpoint_id) === r.id) deliveries[c.status as keyof typeof deliveries] = Number(c.n);
    }
    return {
      id: r.id,
      url: r.url,
      events: r.events,
      description: r.description,
      created_at: new Date(r.created_at).toISOString(),
      deliveries,
    };
  });
}

/** Registers an endpoint; its signing secret is answered this once and kept encrypted. */
export async function createEndpoint(
  deps: { knex: Knex; cipher: Cipher },
  storeId: number,
  input: { url: string; events: string[]; description?: string },
): Promise<EndpointView & { secret: string }> {
  const secret = randomToken(32, 'whsec_');
  const row = await deps.knex.transaction(async (trx) => {
    // Serialises registrations of one store so the limit holds under concurrent requests.
    await trx.raw('select id from stores where id = ? for update', [storeId]);
    const [{ n }] = await trx('merchant_webhook_endpoints')
      .where('store_id', storeId)
      .count<{ n: number }[]>('* as n');
    if (Number(n) >= MAX_ENDPOINTS_PER_STORE) {
      throw new InvalidError(`A store can have at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints`);
    }
    const [inserted] = await trx('merchant_webhook_endpoints')
      .insert({
        store_id: storeId,
        url: input.url,
        events: [...new Set(input.events)],
        secret_encrypted: deps.cipher.encrypt(secret),
        description: input.description ?? null,
      })
      .returning(['id', 'url', 'events', 'description', 'created_at']);
    return inserted as EndpointRow;
  });
  const [view] = await viewsOf(deps.knex, [row]);
  return { ...view!, secret };
}

export async function listEndpoints(
  knex: Knex,
  storeId: number,
  page: PageRequest,
): Promise<{ items: EndpointView[]; meta: PageMeta }> {
  const base = knex('merchant_webhook_endpoints')
    .where('store_id', storeId)
    .select('id', 'url', 'events', 'description', 'created_at');
  const { rows, meta } = await paginate<EndpointRow>(base, page, (q) => q.orderBy('id'));
  return { items: await viewsOf(knex, rows), meta };
}

/** Deletes the endpoint and its delivery history; pending deliveries are dropped by the worker. */
export async function deleteEndpoint(knex: Knex, storeId: number, endpointId: number): Promise<void> {
  const deleted = await knex('merchant_webhook_endpoints')
    .where({ id: endpointId, store_id: storeId })
    .delete();
  if (deleted === 0) throw new NotFoundError(ENDPOINT_NOT_FOUND).withCode('webhook_endpoint_not_found');
}
