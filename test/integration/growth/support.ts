import crypto from 'node:crypto';
import { expect } from 'chai';
import { Store } from '../../../db/models';
import { loadFixture } from '../../../shared/services/seed';
import type { TestResponse } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { guestInitiate, RunningPaymentsSuite, statusOf, waitFor } from '../payments/support';

/** A store seeded from a fixture (sandbox card), its merchant token and products by ref. */
export interface GrowthStore {
  store: Store;
  token: string;
  products: Record<string, number>;
  categories: Record<string, number>;
}

export async function growthStore(
  suite: RunningPaymentsSuite,
  keys: Record<string, unknown> = {},
): Promise<GrowthStore> {
  const ref = `g44_${crypto.randomBytes(5).toString('hex')}`;
  const token = `mt_${ref}_secret_0001`;
  const manifest = await loadFixture(suite.deps, {
    stores: [
      {
        ref,
        name: 'Growth Store',
        currency: 'SAR',
        plan: 'paid',
        embed_key: `emb_pk_${ref}`,
        merchant_tokens: [token],
        payment_methods: { card: { provider: 'sandbox' } },
        categories: [{ ref: 'games', name: 'Games', slug: 'games' }],
        products: [
          { ref: 'ebook', name: 'E-book', slug: 'ebook', type: 'product', price: '100.00' },
          { ref: 'game', name: 'Game', slug: 'game', type: 'product', price: '50.00', categories: ['games'] },
          { ref: 'other', name: 'Other', slug: 'other', type: 'product', price: '10.00', sale_price: '9.00' },
        ],
        ...keys,
      },
    ],
  });
  const seeded = manifest.stores[ref]!;
  const store = await Store.query(suite.deps.knex).findById(seeded.id);
  return {
    store: store!,
    token,
    products: Object.fromEntries(Object.entries(seeded.products).map(([k, v]) => [k, v.id])),
    categories: { ...(seeded.categories ?? {}) } as Record<string, number>,
  };
}

export function merchant(
  suite: RunningPaymentsSuite,
  g: GrowthStore,
  method: string,
  path: string,
  json?: unknown,
): Promise<TestResponse> {
  return suite.server.request(path, { method, json, headers: { Authorization: `Bearer ${g.token}` } });
}

export const BUYER = {
  customer_first_name: 'Huda',
  customer_last_name: 'Saleh',
  customer_email: 'huda@i44.test',
  customer_phone: '594400001',
  customer_country_code: '966',
};

/** POST /api/embed/guest/checkout; answers the body's data (status checked by the caller). */
export async function embedCheckout(
  suite: RunningPaymentsSuite,
  g: GrowthStore,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return suite.server.request('/api/embed/guest/checkout', {
    method: 'POST',
    json: { quantity: 1, ...BUYER, ...body },
    headers: { 'X-Embed-Key': g.store.embed_key, 'X-Forwarded-For': randomIp(), ...headers },
  });
}

/** Pays a checkout through the sandbox's page (outcome=paid); answers the order id once it exists. */
export async function payCheckout(
  suite: RunningPaymentsSuite,
  g: GrowthStore,
  checkoutUrl: string,
): Promise<number> {
  const initiated = await guestInitiate(suite.server, g.store, checkoutUrl, 'card');
  expect(initiated.status, initiated.text).to.equal(200);
  const redirect = new URL((initiated.body.data as { redirect_url: string }).redirect_url);
  const pay = await fetch(`${suite.server.url}${redirect.pathname}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
    body: new URLSearchParams({ outcome: 'paid' }).toString(),
  });
  expect(pay.status).to.equal(200);
  await pay.text();
  return waitFor('the order of the paid checkout', async () => {
    const status = await statusOf(suite.server, checkoutUrl);
    const data = status.body.data as { is_paid: boolean; order_id: number | null };
    return data.is_paid && data.order_id !== null ? data.order_id : undefined;
  });
}

/**
 * A webhook endpoint of the store for `events`, on a loopback port where nothing listens: the deliveries
 * are recorded (what a test reads) and their sends fail without leaving the machine.
 */
export async function hookEndpoint(
  suite: RunningPaymentsSuite,
  g: GrowthStore,
  events: string[],
): Promise<void> {
  const res = await merchant(suite, g, 'POST', '/shawarma/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events,
  });
  expect(res.status, res.text).to.equal(201);
}

/** The payloads' `data` of the store's deliveries of `type`, oldest first. */
export async function deliveredData(
  suite: RunningPaymentsSuite,
  g: GrowthStore,
  type: string,
): Promise<Record<string, unknown>[]> {
  const rows: { payload: { data: Record<string, unknown> } }[] = await suite.deps
    .knex('merchant_webhook_deliveries')
    .where({ store_id: g.store.id, event_type: type })
    .orderBy('id')
    .select('payload');
  return rows.map((r) => r.payload.data);
}

export { waitFor };
