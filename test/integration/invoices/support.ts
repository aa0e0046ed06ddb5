import crypto from 'node:crypto';
import { expect } from 'chai';
import { Store } from '../../../db/models';
import { loadFixture } from '../../../shared/services/seed';
import type { TestResponse } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { guestInitiate, RunningPaymentsSuite, statusOf, waitFor } from '../payments/support';

/** Stores seeded from a fixture, and orders paid as outside tooling pays them: the sandbox's Pay button. */

export interface SeededStore {
  store: Store;
  token: string;
  productId: number;
}

export async function seedStore(
  suite: RunningPaymentsSuite,
  keys: Record<string, unknown> = {},
  product: Record<string, unknown> = {},
): Promise<SeededStore> {
  const ref = `tax_${crypto.randomBytes(5).toString('hex')}`;
  const token = `mt_${ref}_secret_0001`;
  const manifest = await loadFixture(suite.deps, {
    stores: [
      {
        ref,
        name: 'Acme Digital',
        currency: 'SAR',
        plan: 'paid',
        embed_key: `emb_pk_${ref}`,
        merchant_tokens: [token],
        payment_methods: { card: { provider: 'sandbox' } },
        products: [
          { ref: 'ebook', name: 'E-book', slug: 'ebook', type: 'product', price: '115.00', ...product },
        ],
        ...keys,
      },
    ],
  });
  const seeded = manifest.stores[ref]!;
  const store = await Store.query(suite.deps.knex).findById(seeded.id);
  return { store: store!, token, productId: seeded.products.ebook!.id };
}

export function merchantGet(suite: RunningPaymentsSuite, token: string, path: string): Promise<TestResponse> {
  return suite.server.request(path, { headers: { Authorization: `Bearer ${token}` } });
}

/** A checkout paid through the sandbox's page (POST outcome=paid), answered once the order exists. */
export async function payThroughSandbox(
  suite: RunningPaymentsSuite,
  seeded: SeededStore,
  quantity = 1,
): Promise<number> {
  const res = await suite.server.request('/api/embed/guest/checkout', {
    method: 'POST',
    json: {
      product_id: seeded.productId,
      quantity,
      customer_first_name: 'Sara',
      customer_last_name: 'Ali',
      customer_email: 'sara@example.com',
      customer_phone: '500009001',
      customer_country_code: '966',
    },
    headers: { 'X-Embed-Key': seeded.store.embed_key, 'X-Forwarded-For': randomIp() },
  });
  expect(res.status, res.text).to.equal(200);
  const checkoutUrl = (res.body.data as { checkout_url: string }).checkout_url;
  const initiated = await guestInitiate(suite.server, seeded.store, checkoutUrl, 'card');
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

/** The same address on the test's server (PUBLIC_BASE_URL's host aside). */
export function onServer(suite: RunningPaymentsSuite, url: string): string {
  const parsed = new URL(url);
  return `${suite.server.url}${parsed.pathname}${parsed.search}`;
}
