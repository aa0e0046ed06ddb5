import crypto from 'node:crypto';
import { expect } from 'chai';
import knexFactory from 'knex';
import { Product, Store } from '../../../db/models';
import { CACHE_TTL_MS, readStamp } from '../../../shared/cache/versioned';
import type { Deps } from '../../../shared/deps';
import { cachedPaymentStatus } from '../../../shared/services/payments';
import { cachedProductView } from '../../../shared/services/catalogue';
import { bump } from '../../../shared/cache/versioned';
import { productCounter } from '../../../shared/services/catalogue/cache';
import { loadFixture } from '../../../shared/services/seed';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import type { WorkerPool } from '../../../workers/worker-pool';
import { expectRefusal, insertLicense, insertOrder, licensedProduct, verify } from '../license/support';
import {
  browse,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  startWorkers,
  statusOf,
  waitFor,
} from '../payments/support';

/**
 * The hot-read caches (docs/caching.md) seen from two web processes: two apps, each on Deps of its own
 * (so each with its own in-process caches, Postgres pool and Redis connection), on one database and one
 * Redis prefix. Each test warms both caches, changes the row through the real writer on one side (or in a
 * worker), and reads the new value on the other side with the very next request.
 */
describe('hot reads: per-process caches invalidated across processes', function () {
  this.timeout(30_000);
  let a: Deps;
  let b: Deps;
  let serverA: TestServer;
  let serverB: TestServer;
  let workers: WorkerPool;

  before(async () => {
    a = await isolatedDeps({ RATE_LIMITS: 'off', TRUST_PROXY: '1' });
    b = await isolatedDeps({ RATE_LIMITS: 'off', TRUST_PROXY: '1', QUEUE_PREFIX: a.config.queuePrefix });
    serverA = await startServer(a);
    serverB = await startServer(b);
    // The payments worker runs beside process A, as `worker` does beside `web`.
    workers = await startWorkers(a);
  });
  const stores: number[] = [];
  async function ownStore(): Promise<Store> {
    const store = await createStore();
    stores.push(store.id);
    return store;
  }
  after(async () => {
    // The run shares one database: leave no checkout holding stock or keys for another suite's expiry.
    await a
      .knex('checkouts')
      .whereIn('store_id', stores)
      .whereIn('status', ['created', 'payment_initiated'])
      .update({ status: 'expired', reserved: false });
    await a
      .knex('product_codes')
      .whereIn('checkout_id', a.knex('checkouts').select('id').whereIn('store_id', stores))
      .where('status', 'reserved')
      .update({ status: 'available', checkout_id: null });
    await workers.close(1_000);
    await serverA.close();
    await serverB.close();
  });

  /** Postgres queries `deps` issues while `fn` runs. */
  async function queriesDuring(deps: Deps, fn: () => Promise<void>): Promise<number> {
    let queries = 0;
    const count = (): void => {
      queries += 1;
    };
    deps.knex.on('query', count);
    try {
      await fn();
    } finally {
      deps.knex.off('query', count);
    }
    return queries;
  }

  describe('payment status', () => {
    let store: Store;
    let product: Product;

    beforeEach(async () => {
      store = await ownStore();
      await hostedMethod(a, store, 'card', 'sandbox');
      product = await createProduct(store, { price_minor: 4_000 });
    });

    async function openAndInitiate(): Promise<{
      checkoutUrl: string;
      checkoutId: number;
      redirectUrl: string;
    }> {
      const checkout = await guestCheckout(serverA, store, { product_id: product.id });
      const res = await guestInitiate(serverA, store, checkout.checkoutUrl, 'card');
      expect(res.status, res.text).to.equal(200);
      const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
      // The worker opens the sandbox session (the payment leaves pending, which bumps its checkout's
      // counter): wait for it, so the warm-up below is not undone by it.
      await sessionOf(paymentIdOf(redirectUrl));
      return { checkoutUrl: checkout.checkoutUrl, checkoutId: checkout.checkoutId, redirectUrl };
    }

    it('a repeated poll issues no Postgres query', async () => {
      const { checkoutUrl } = await openAndInitiate();
      // The first poll learns the checkout's id, the second caches the answer.
      for (let i = 0; i < 2; i += 1) expect((await statusOf(serverB, checkoutUrl)).status).to.equal(200);
      const queries = await queriesDuring(b, async () => {
        for (let i = 0; i < 5; i += 1) {
          const res = await statusOf(serverB, checkoutUrl);
          expect(res.body.data).to.deep.equal({ is_paid: false, order_id: null });
        }
      });
      expect(queries).to.equal(0);
    });

    it('a checkout paid through the sandbox is paid on the other process at the very next poll', async () => {
      const { checkoutUrl, checkoutId, redirectUrl } = await openAndInitiate();
      for (const server of [serverA, serverB, serverA, serverB, serverA, serverB]) {
        expect((await statusOf(server, checkoutUrl)).body.data).to.deep.equal({
          is_paid: false,
          order_id: null,
        });
      }
      // Cached on B: the next poll would not read Postgres.
      expect(
        await queriesDuring(b, async () => {
          await statusOf(serverB, checkoutUrl);
        }),
      ).to.equal(0);

      // Press Pay on the sandbox page served by A; the worker beside A reconciles and creates the order.
      const chosen = await browse(serverA, redirectUrl, { outcome: 'paid' });
      expect(chosen.status).to.equal(200);
      const order = await orderOf(checkoutId);
      // The reconciling job bumps the status counter right after its commit, which is when the order
      // becomes visible: "the very next poll" is the one after that job has finished.
      await waitFor('the reconciliation to finish', async () => {
        const counts = await a.queues.payments.getJobCounts('active', 'waiting', 'prioritized');
        return Object.values(counts).every((n) => n === 0) || undefined;
      });

      const res = await statusOf(serverB, checkoutUrl);
      expect(res.body.data).to.deep.equal({ is_paid: true, order_id: order.id });
      expect((await statusOf(serverA, checkoutUrl)).body.data).to.deep.equal({
        is_paid: true,
        order_id: order.id,
      });
    });

    it('unknown checkouts are answered 404 from Postgres every time, never cached', async () => {
      const url = `cs_${crypto.randomBytes(16).toString('hex')}`;
      const queries = await queriesDuring(b, async () => {
        for (let i = 0; i < 3; i += 1) expect((await statusOf(serverB, url)).status).to.equal(404);
      });
      expect(queries).to.equal(3);
    });

    it('does not hide an unreachable Postgres beyond the TTL', async () => {
      const { checkoutUrl } = await openAndInitiate();
      const unreachable = knexFactory({
        client: 'pg',
        connection: { host: '127.0.0.1', port: 9, user: 'nobody', database: 'nowhere' },
        acquireConnectionTimeout: 1_000,
        pool: { min: 0, max: 1 },
        log: { warn() {}, error() {}, debug() {}, deprecate() {} },
      });
      // One object whose knex is swapped, as if Postgres went away under a running process.
      const proc = { redis: b.redis, config: b.config, knex: b.knex, caches: b.caches };
      try {
        const now = Date.now();
        await cachedPaymentStatus(proc, checkoutUrl, new Date(now));
        await cachedPaymentStatus(proc, checkoutUrl, new Date(now));
        proc.knex = unreachable;
        // Within the TTL the cached answer is served...
        expect(await cachedPaymentStatus(proc, checkoutUrl, new Date(now + 1_000))).to.deep.equal({
          is_paid: false,
          order_id: null,
        });
        // ...past it, Postgres is asked again, and its absence shows.
        let failure: unknown = null;
        await cachedPaymentStatus(proc, checkoutUrl, new Date(now + CACHE_TTL_MS + 1_000)).catch((err) => {
          failure = err;
        });
        expect(failure).to.be.instanceOf(Error);
        expect((failure as Error).name).to.not.equal('NotFoundError');
      } finally {
        await unreachable.destroy();
      }
    });
  });

  describe('embed store and product, storefront store', () => {
    const ref = `cache-${crypto.randomBytes(4).toString('hex')}`;
    const domain = `${ref}.shop.test`;
    const embedKey = `emb_pk_${ref.replace('-', '_')}`;

    function fixture(opts: { price: string; domains: string[]; key?: string }): unknown {
      return {
        stores: [
          {
            ref,
            name: 'Cache Store',
            currency: 'SAR',
            domains: opts.domains,
            embed_key: opts.key ?? embedKey,
            payment_methods: { card: { provider: 'sandbox' } },
            products: [
              { ref: 'thing', name: 'Thing', slug: 'thing', type: 'product', price: opts.price, stock: 10 },
            ],
          },
        ],
      };
    }

    const product = (server: TestServer, id: number, key = embedKey) =>
      server.request(`/api/embed/product/${id}`, {
        headers: { 'X-Embed-Key': key, 'X-Forwarded-For': randomIp() },
      });
    const priceOf = (body: unknown): number =>
      (body as { data: { price: { actual: number } } }).data.price.actual;
    const stockOf = (body: unknown): number | null =>
      (body as { data: { stock: { quantity: number | null } } }).data.stock.quantity;

    it('answers a repeated product read (embed key and product) without Postgres', async () => {
      const manifest = await loadFixture(a, fixture({ price: '50.00', domains: [] }));
      const productId = manifest.stores[ref]!.products.thing!.id;
      for (let i = 0; i < 2; i += 1) expect((await product(serverB, productId)).status).to.equal(200);
      const queries = await queriesDuring(b, async () => {
        for (let i = 0; i < 5; i += 1) expect(priceOf((await product(serverB, productId)).body)).to.equal(50);
      });
      expect(queries).to.equal(0);
    });

    it('a price, domain and embed key changed by the fixture loader are seen by the other process at once', async () => {
      const manifest = await loadFixture(a, fixture({ price: '50.00', domains: [] }));
      const productId = manifest.stores[ref]!.products.thing!.id;
      const byHost = (server: TestServer) =>
        server.request('/api/reviews/stats', { headers: { Host: domain, 'X-Forwarded-For': randomIp() } });
      for (const server of [serverA, serverB, serverA, serverB]) {
        expect(priceOf((await product(server, productId)).body)).to.equal(50);
        // Not a domain of any store yet (and that answer is cached too).
        expect((await byHost(server)).status).to.equal(400);
      }

      await loadFixture(a, fixture({ price: '60.00', domains: [domain] }));
      expect(priceOf((await product(serverB, productId)).body)).to.equal(60);
      expect((await byHost(serverB)).status).to.equal(200);

      const newKey = `${embedKey}_2`;
      await loadFixture(a, fixture({ price: '60.00', domains: [domain], key: newKey }));
      expect((await product(serverB, productId)).status).to.equal(401);
      expect(priceOf((await product(serverB, productId, newKey)).body)).to.equal(60);
    });

    it('requests missing at once share one Postgres read, and get the cached view frozen, not a copy', async () => {
      const store = await ownStore();
      const thing = await createProduct(store, { price_minor: 1_000, stock: 10 });
      const view = () => cachedProductView(b, store, thing.id);
      await view();
      // A miss alone, then ten at the same moment, each after a change of the product's counters.
      await bump(a, [productCounter(thing.id)]);
      const one = await queriesDuring(b, async () => void (await view()));
      await bump(a, [productCounter(thing.id)]);
      let views: Awaited<ReturnType<typeof view>>[] = [];
      const ten = await queriesDuring(b, async () => {
        views = await Promise.all(Array.from({ length: 10 }, view));
      });
      expect(one).to.be.greaterThan(0);
      expect(ten).to.equal(one);
      expect(new Set(views).size).to.equal(1);
      const [shared] = views;
      expect(
        Object.isFrozen(shared) && Object.isFrozen(shared.price) && Object.isFrozen(shared.payment_methods),
      ).to.equal(true);
      expect(() => {
        (shared.price as { actual: number }).actual = 0;
      }).to.throw(TypeError);
      expect((await view()).price.actual).to.equal(10);
    });

    it('stock taken by a checkout on one process shows on the other at the very next read', async () => {
      const store = await ownStore();
      await hostedMethod(a, store, 'card', 'sandbox');
      const limited = await createProduct(store, { price_minor: 1_000, stock: 10 });
      const read = (server: TestServer) => product(server, limited.id, store.embed_key);
      for (const server of [serverA, serverB, serverA, serverB])
        expect(stockOf((await read(server)).body)).to.equal(10);
      await guestCheckout(serverA, store, { product_id: limited.id, quantity: 3 });
      expect(stockOf((await read(serverB)).body)).to.equal(7);
      expect(stockOf((await read(serverA)).body)).to.equal(7);
    });
  });

  describe('license verify', () => {
    it('a license refunded through the Merchant API on one process is revoked on the other at once', async () => {
      const store = await ownStore();
      const product = await licensedProduct(store, a.cipher);
      const orderId = await insertOrder(a.knex, store);
      const license = await insertLicense(product, { order_id: orderId });
      const body = { product_id: product.id, license_key: license.key };
      for (const server of [serverA, serverB, serverA, serverB]) {
        expect((await verify(server, body)).status).to.equal(200);
      }
      const token = await merchantToken(store);
      const res = await serverA.request(`/shawarma/orders/${orderId}`, {
        method: 'PUT',
        json: { status: 6 },
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status, res.text).to.equal(200);

      expectRefusal(await verify(serverB, body), 403, 'LICENSE_REVOKED');
    });
  });

  describe('uow.bump', () => {
    it('bumps once the unit of work commits, nothing before and nothing on rollback', async () => {
      const counter = `test:v:${crypto.randomBytes(4).toString('hex')}`;
      const value = () => readStamp(a, [counter]);
      await a.tx(async (uow) => {
        uow.bump([counter]);
        expect(await value()).to.equal('0');
      });
      // The root unit waits for its effects before it returns.
      expect(await value()).to.equal('1');
      await a
        .tx(async (uow) => {
          uow.bump([counter]);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      expect(await value()).to.equal('1');
    });
  });
});
