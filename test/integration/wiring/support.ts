import { expect } from 'chai';
import { loadFixture, type StoreManifest } from '../../../shared/services/seed';
import { randomIp } from '../../helpers/otp';
import type { TestResponse } from '../../helpers/http';
import { chooseInSandbox } from '../fraud/support';
import { type RunningPaymentsSuite, waitFor } from '../payments/support';

/**
 * A store for the wiring tests (docs/store-pages.md, docs/growth.md, docs/fraud.md): sandbox card, two
 * products, a coupon, a merchant token and an embed key, a webhook endpoint for `creator.commission` on a
 * loopback port where nothing listens; and the calls the tests make on it (the store page checkout as a
 * browser posts it, paying through the sandbox, creators through the Merchant API).
 */

export interface CreatorBody {
  id: number;
  orders: number;
  revenue: string;
  commission: string;
}

export interface Wiring {
  m: StoreManifest;
  slug: string;
  embedKey: string;
  merchant(method: string, path: string, json?: unknown): Promise<TestResponse>;
  newCreator(body: Record<string, unknown>): Promise<CreatorBody>;
  creator(id: number): Promise<CreatorBody>;
  buyer(phone: string, email?: string): Record<string, string>;
  postCheckout(
    product: string,
    values: Record<string, string>,
    opts?: { ip?: string; cookie?: string; lang?: string },
  ): Promise<TestResponse>;
  payFrom(res: TestResponse, phone: string): Promise<number>;
}

export async function wiringStore(suite: RunningPaymentsSuite, name: string): Promise<Wiring> {
  const slug = `w42-${name}`;
  const key = name.replace(/-/g, '_');
  const TOKEN = `mt_w42_${key}_secret_0001`;
  const EMBED_KEY = `emb_pk_w42_${key}`;
  const m = (
    await loadFixture(suite.deps, {
      stores: [
        {
          ref: slug,
          slug,
          name: `Wiring ${name}`,
          currency: 'SAR',
          plan: 'paid',
          embed_key: EMBED_KEY,
          merchant_tokens: [TOKEN],
          payment_methods: { card: { provider: 'sandbox' } },
          products: [
            { ref: 'guide', name: 'Guide', slug: 'guide', type: 'product', price: '80.00' },
            { ref: 'pack', name: 'Pack', slug: 'pack', type: 'product', price: '40.00' },
            {
              ref: 'key',
              name: 'Key',
              slug: 'key',
              type: 'code',
              price: '25.00',
              codes: [`W42-${key}-1`, `W42-${key}-2`, `W42-${key}-3`],
            },
          ],
          coupons: [{ code: 'W42COUPON', type: 'percentage', amount: '10', active: true }],
        },
      ],
    })
  ).stores[slug]!;

  function merchant(method: string, path: string, json?: unknown): Promise<TestResponse> {
    return suite.server.request(path, { method, json, headers: { Authorization: `Bearer ${TOKEN}` } });
  }

  async function newCreator(body: Record<string, unknown>): Promise<CreatorBody> {
    const res = await merchant('POST', '/shawarma/creators', { commission_percent: 10, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body.data as CreatorBody;
  }

  async function creator(id: number): Promise<CreatorBody> {
    const res = await merchant('GET', `/shawarma/creators/${id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as CreatorBody;
  }

  const buyer = (phone: string, email = `buyer${phone}@w42.test`) => ({
    customer_first_name: 'Salem',
    customer_last_name: 'Ali',
    customer_email: email,
    customer_country_code: '966',
    customer_phone: phone,
    quantity: '1',
    payment_method: 'card',
  });

  /** Posts the store page checkout form as a browser would (urlencoded), from `ip`, with `cookie`. */
  function postCheckout(
    product: string,
    values: Record<string, string>,
    opts: { ip?: string; cookie?: string; lang?: string } = {},
  ): Promise<TestResponse> {
    return suite.server.request(`/s/${slug}/checkout/${product}?lang=${opts.lang ?? 'en'}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams(values).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Forwarded-For': opts.ip ?? randomIp(),
        ...(opts.cookie ? { Cookie: opts.cookie } : {}),
      },
    });
  }

  /** Pays the payment the checkout form's 303 leads to; answers its order once paid. */
  async function payFrom(res: TestResponse, phone: string): Promise<number> {
    expect(res.status, res.text).to.equal(303);
    const location = new URL(res.headers.get('location')!, suite.server.url);
    const paid = await chooseInSandbox(suite.server, location.toString(), 'paid');
    expect(paid.status, paid.text).to.equal(200);
    return waitFor('the paid order', async () => {
      const row = await suite.deps
        .knex('orders')
        .where({ store_id: m.id, customer_phone: phone })
        .whereIn('status', [3, 4])
        .first('id');
      return row ? Number(row.id) : undefined;
    });
  }

  const hook = await merchant('POST', '/shawarma/webhooks', {
    url: 'http://127.0.0.1:9/hooks',
    events: ['creator.commission'],
  });
  expect(hook.status, hook.text).to.equal(201);
  return { m, slug, embedKey: EMBED_KEY, merchant, newCreator, creator, buyer, postCheckout, payFrom };
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
export const cookieOf = (res: TestResponse): string =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
