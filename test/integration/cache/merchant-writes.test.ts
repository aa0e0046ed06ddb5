/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk JSON answers the contract check has already validated */
import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestResponse, type TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { filePart, fixture } from '../checkout/support';
import { hostedMethod } from '../payments/support';

/**
 * Every Merchant API writer bumps the cache counters of what it changed itself, through its unit of work
 * (docs/caching.md): the HTTP tier invalidates nothing. Two web processes on one database and one Redis
 * prefix; the Embed API's product answer (and the store lookup by embed key) is warm in B's memory, the
 * merchant writes through A, and B's very next read shows the change.
 */
describe('hot reads: each Merchant API write is seen by the other process at once', function () {
  this.timeout(60_000);
  let a: Deps;
  let b: Deps;
  let serverA: TestServer;
  let serverB: TestServer;
  let store: Store;
  let token: string;

  before(async () => {
    a = await isolatedDeps({ RATE_LIMITS: 'off', TRUST_PROXY: '1' });
    b = await isolatedDeps({ RATE_LIMITS: 'off', TRUST_PROXY: '1', QUEUE_PREFIX: a.config.queuePrefix });
    serverA = await startServer(a);
    serverB = await startServer(b);
  });
  after(async () => {
    await serverA.close();
    await serverB.close();
  });
  beforeEach(async () => {
    store = await createStore();
    await hostedMethod(a, store, 'card', 'sandbox');
    token = await merchantToken(store);
  });

  const write = async (method: string, path: string, json?: unknown): Promise<TestResponse> => {
    const res = await serverA.request(path, { method, json, headers: { Authorization: `Bearer ${token}` } });
    expect(res.status, res.text).to.be.oneOf([200, 201, 204]);
    return res;
  };
  const read = (server: TestServer, id: number, key = store.embed_key) =>
    server.request(`/api/embed/product/${id}`, {
      headers: { 'X-Embed-Key': key, 'X-Forwarded-For': randomIp() },
    });
  const viewOf = async (server: TestServer, id: number): Promise<any> => {
    const res = await read(server, id);
    expect(res.status, res.text).to.equal(200);
    return res.body.data;
  };

  /** Postgres queries B issues while reading the product: 0 when its answer comes from B's memory. */
  async function queriesOfRead(id: number): Promise<number> {
    let queries = 0;
    const count = (): void => {
      queries += 1;
    };
    b.knex.on('query', count);
    try {
      await viewOf(serverB, id);
    } finally {
      b.knex.off('query', count);
    }
    return queries;
  }

  /** Warms B (and A) and checks B answers from memory, so what follows is a real invalidation. */
  async function warm(id: number): Promise<void> {
    for (const server of [serverA, serverB, serverA, serverB]) await viewOf(server, id);
    expect(await queriesOfRead(id)).to.equal(0);
  }

  async function newProduct(extra: Record<string, unknown> = {}): Promise<number> {
    const res = await write('POST', '/shawarma/products', {
      name: 'Thing',
      slug: `thing-${Math.random().toString(36).slice(2, 8)}`,
      type: 'product',
      price: '50.00',
      ...extra,
    });
    return (res.body.data as any).id as number;
  }

  it('products: update (price, plans, stock) and archive', async () => {
    const id = await newProduct({ stock: 10 });
    await warm(id);
    await write('PATCH', `/shawarma/products/${id}`, {
      price: '60.00',
      stock: 7,
      plans: [{ name: 'Monthly', price: '10.00', duration: 'monthly' }],
    });
    const view = await viewOf(serverB, id);
    expect(view.price.actual).to.equal(60);
    expect(view.stock.quantity).to.equal(7);
    expect(view.subscription_plans.map((p: any) => p.name)).to.deep.equal(['Monthly']);

    await warm(id);
    await write('DELETE', `/shawarma/products/${id}`);
    expect((await read(serverB, id)).status).to.equal(404);
  });

  it('categories: create, rename, delete', async () => {
    const category = await write('POST', '/shawarma/categories', { name: 'Ranks', slug: 'ranks' });
    const categoryId = (category.body.data as any).id as number;
    const id = await newProduct({ categories: [categoryId] });
    await warm(id);
    await write('POST', '/shawarma/categories', { name: 'Other', slug: 'other' });
    expect(await queriesOfRead(id)).to.be.above(0);

    await warm(id);
    await write('PATCH', `/shawarma/categories/${categoryId}`, { name: 'Ranks VIP' });
    expect((await viewOf(serverB, id)).categories.map((c: any) => c.name)).to.deep.equal(['Ranks VIP']);

    await warm(id);
    await write('DELETE', `/shawarma/categories/${categoryId}`);
    expect((await viewOf(serverB, id)).categories).to.deep.equal([]);
  });

  it('product image', async () => {
    const id = await newProduct();
    await warm(id);
    const form = new FormData();
    form.append('image', ...filePart(await fixture('sample.png'), 'cover.png'));
    const res = await serverA.request(`/shawarma/products/${id}/image`, {
      method: 'POST',
      body: form,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status, res.text).to.equal(200);
    expect((await viewOf(serverB, id)).image.url).to.equal((res.body.data as any).image_url);
  });

  it('key stock: codes added and withdrawn', async () => {
    const id = await newProduct({ type: 'code', codes: ['K-1', 'K-2'] });
    await warm(id);
    expect((await viewOf(serverB, id)).stock.quantity).to.equal(2);
    await write('POST', `/shawarma/products/${id}/codes`, { codes: ['K-3', 'K-4', 'K-5'] });
    expect((await viewOf(serverB, id)).stock.quantity).to.equal(5);
    await warm(id);
    await write('POST', `/shawarma/products/${id}/codes/withdraw`, { codes: ['K-1'] });
    expect((await viewOf(serverB, id)).stock.quantity).to.equal(4);
  });

  it('store settings (currency) and the embed key rotation', async () => {
    const id = await newProduct();
    await warm(id);
    await write('PATCH', '/shawarma/store', { currency: 'USD' });
    expect((await viewOf(serverB, id)).currency).to.equal('USD');

    await warm(id);
    const rotated = await write('POST', '/shawarma/store/embed-key');
    const newKey = (rotated.body.data as any).embed_key as string;
    expect((await read(serverB, id)).status).to.equal(401);
    expect((await read(serverB, id, newKey)).status).to.equal(200);
  });
});
