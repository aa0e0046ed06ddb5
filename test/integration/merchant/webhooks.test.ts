import { recordMerchantEvent } from '../../../shared/events/merchant-webhooks';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ORDER_STATUS, Product } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import {
  createEndpoint,
  deliverWebhook,
  dispatchDeliveries,
  isPrivateAddress,
  SsrfRefusedError,
  vetHost,
} from '../../../shared/services/webhooks';
import { createMerchantWebhooksProcessor } from '../../../workers/processors/merchant-webhooks';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { waitFor } from '../queues/support';
import { call, expectEnvelope, merchantStore, MerchantStore, seedOrder, useMerchantSuite } from './support';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A merchant's endpoint on 127.0.0.1: records every request; `answer` picks the status of each. */
class Receiver {
  received: Received[] = [];
  answer: (r: Received, n: number) => number = () => 200;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.received.push(r);
      res.statusCode = this.answer(r, this.received.filter((x) => x.path === r.path).length);
      res.end('ok');
    });
  });
  url = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
}

/** What a merchant's receiver does: recompute HMAC-SHA256 over "t.body" with the secret. */
function verify(secret: string, header: string, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex');
  return crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(m[2]!));
}

/** Counts TCP connection attempts made while `fn` runs. */
async function connectionsDuring(fn: () => Promise<unknown>): Promise<number> {
  const original = net.Socket.prototype.connect;
  let attempts = 0;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    attempts += 1;
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  try {
    await fn().catch(() => undefined);
  } finally {
    net.Socket.prototype.connect = original;
  }
  return attempts;
}

describe('Merchant webhooks: endpoints, signed deliveries, retries, SSRF guard', function () {
  this.timeout(30_000);
  const suite = useMerchantSuite({ RATE_LIMITS: 'off', MERCHANT_WEBHOOK_RETRY_DELAY_MS: '50' });
  const receiver = new Receiver();
  let workers: WorkerPool;
  let m: MerchantStore;
  let product: Product;

  before(async () => {
    await receiver.start();
    // Test-only relaxation: deliveries may reach the receiver on 127.0.0.1.
    workers = await WorkerPool.start(suite.deps, {
      registry: {
        'merchant-webhooks': createMerchantWebhooksProcessor({ allowPrivateAddresses: true }),
        fulfilment: processors.fulfilment,
      },
      queues: ['merchant-webhooks', 'fulfilment'],
    });
    m = await merchantStore();
    product = await createProduct(m.store, { price_minor: 1_000 });
  });
  after(async () => {
    await workers?.close(500);
    await receiver.close();
  });

  it('registers, lists and deletes endpoints; the secret is shown once and kept encrypted', async () => {
    const res = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', {
      url: `${receiver.url}/list-only`,
      events: ['order.created'],
      description: 'Accounting',
    });
    expectEnvelope(res, 201);
    const created = res.body.data as { id: number; secret: string; events: string[] };
    expect(created.secret).to.match(/^whsec_/);
    const row = await suite.deps.knex('merchant_webhook_endpoints').where('id', created.id).first();
    expect(row.secret_encrypted).to.not.contain(created.secret);
    expect(suite.deps.cipher.decrypt(row.secret_encrypted)).to.equal(created.secret);
    const list = await call(suite.server, m.token, 'GET', '/shawarma/webhooks');
    expectEnvelope(list, 200);
    const listed = (list.body.data as { data: Record<string, unknown>[] }).data;
    expect(listed.map((e) => e.id)).to.deep.equal([created.id]);
    expect(JSON.stringify(listed)).to.not.contain(created.secret);
    expectEnvelope(await call(suite.server, m.token, 'DELETE', `/shawarma/webhooks/${created.id}`), 200);
    expectEnvelope(await call(suite.server, m.token, 'DELETE', `/shawarma/webhooks/${created.id}`), 404);
  });

  it('a status change delivers signed order.paid and order.status_changed to the endpoints that asked', async () => {
    const all = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', {
      url: `${receiver.url}/all`,
      events: ['order.paid', 'order.status_changed', 'license.revoked', 'subscription.*'],
    });
    const paidOnly = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', {
      url: `${receiver.url}/paid-only`,
      events: ['order.paid'],
    });
    const secret = (all.body.data as { secret: string }).secret;
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.UNDER_REVIEW });
    expectEnvelope(
      await call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 3 }),
      200,
    );

    // The fulfilment job may complete the order next (its goods are digital): that 3 -> 4 is an
    // order.status_changed of its own, not this change's.
    const ofThisChange = (body: string) => (JSON.parse(body) as { data: { from?: number } }).data.from !== 3;
    const mine = () => receiver.on('/all').filter((r) => ofThisChange(r.body));
    await waitFor('two deliveries to /all', async () => mine().length >= 2);
    await waitFor('one delivery to /paid-only', async () => receiver.on('/paid-only').length >= 1);
    const types = mine()
      .map((r) => r.headers['x-webhook-event'])
      .sort();
    expect(types).to.deep.equal(['order.paid', 'order.status_changed']);
    for (const r of mine()) {
      expect(verify(secret, String(r.headers['x-signature']), r.body), 'signature').to.equal(true);
      expect(verify(secret, String(r.headers['x-signature']), r.body.replace('}', ' }'))).to.equal(false);
      const payload = JSON.parse(r.body);
      expect(payload).to.include.keys('id', 'type', 'created_at', 'store_id', 'data');
      expect(payload.data.order_id).to.equal(order.id);
      expect(r.headers['x-webhook-id']).to.equal(payload.id);
    }
    const changed = JSON.parse(
      mine().find((r) => r.headers['x-webhook-event'] === 'order.status_changed')!.body,
    );
    expect(changed.data).to.deep.include({ from: 2, to: 3 });
    expect(receiver.on('/paid-only').map((r) => r.headers['x-webhook-event'])).to.deep.equal(['order.paid']);
    await waitFor('deliveries marked delivered', async () => {
      const rows = (
        await suite.deps.knex('merchant_webhook_deliveries').where('store_id', m.store.id)
      ).filter((d) => (d.payload as { data: { from?: number } }).data.from !== 3);
      return rows.length === 3 && rows.every((d) => d.status === 'delivered' && d.response_status === 200);
    });
    expect(paidOnly.status).to.equal(201);
  });

  it('an order made through the Merchant API is announced by fulfilment: order.created and order.paid, once each', async () => {
    const own = await merchantStore();
    const free = await createProduct(own.store, { price_minor: 0 });
    await call(suite.server, own.token, 'POST', '/shawarma/webhooks', {
      url: `${receiver.url}/fulfilled`,
      events: ['order.created', 'order.paid'],
    });
    const created = await call(suite.server, own.token, 'POST', '/shawarma/orders', {
      product_id: free.id,
      quantity: 1,
      customer_first_name: 'Free',
      customer_last_name: 'Buyer',
      customer_email: 'free@example.com',
      customer_phone: '500000555',
      customer_country_code: '966',
    });
    expectEnvelope(created, 201);
    const orderId = (created.body.data as { order_id: number }).order_id;
    await waitFor('order.created and order.paid', async () => receiver.on('/fulfilled').length >= 2);
    const events = receiver
      .on('/fulfilled')
      .map(
        (r) => JSON.parse(r.body) as { id: string; type: string; data: { order_id: number; source: string } },
      );
    expect(events.map((e) => e.id).sort()).to.deep.equal([
      `order.created:${orderId}`,
      `order.paid:${orderId}`,
    ]);
    expect(events.every((e) => e.data.order_id === orderId && e.data.source === 'merchant')).to.equal(true);
  });

  it('a refund sends license.revoked and subscription.cancelled (subscription.*)', async () => {
    const { knex } = suite.deps;
    const before = receiver.on('/all').length;
    const order = await seedOrder(knex, m.store, product, { status: ORDER_STATUS.COMPLETED });
    const [plan] = await knex('product_plans')
      .insert({ product_id: product.id, name: 'M', price_minor: 1, duration: 'monthly' })
      .returning('id');
    await knex('licenses').insert({
      store_id: m.store.id,
      product_id: product.id,
      order_id: order.id,
      key: `WH-${order.id}`,
      status: 'active',
    });
    await knex('subscriptions').insert({
      store_id: m.store.id,
      product_id: product.id,
      plan_id: plan.id,
      order_id: order.id,
      status: 'active',
      current_period_start: new Date(),
    });
    expectEnvelope(
      await call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 6 }),
      200,
    );
    await waitFor('three more deliveries', async () => receiver.on('/all').length >= before + 3);
    const types = receiver
      .on('/all')
      .slice(before)
      .map((r) => r.headers['x-webhook-event'])
      .sort();
    expect(types).to.deep.equal(['license.revoked', 'order.status_changed', 'subscription.cancelled']);
    const revoked = JSON.parse(
      receiver
        .on('/all')
        .slice(before)
        .find((r) => r.headers['x-webhook-event'] === 'license.revoked')!.body,
    );
    expect(revoked.data).to.deep.include({ key: `WH-${order.id}`, order_id: order.id });
  });

  it('a failing endpoint is retried with back-off until it answers 2xx; the same event is never recorded twice', async () => {
    const flaky = await createEndpoint(suite.deps, m.store.id, {
      url: `${receiver.url}/flaky`,
      events: ['order.created'],
    });
    receiver.answer = (r, n) => (r.path === '/flaky' && n <= 2 ? 500 : 200);
    const event = { id: 'order.created:flaky-1', type: 'order.created' as const, data: { order_id: 1 } };
    const ids = await recordMerchantEvent(suite.deps.knex, m.store.id, event);
    expect(await recordMerchantEvent(suite.deps.knex, m.store.id, event)).to.deep.equal([]);
    await dispatchDeliveries(suite.deps, ids);
    await dispatchDeliveries(suite.deps, ids); // the same job id: still one delivery
    const row = await waitFor('the flaky delivery delivered', async () => {
      const d = await suite.deps.knex('merchant_webhook_deliveries').where('id', ids[0]!).first();
      return d.status === 'delivered' ? d : undefined;
    });
    expect(row.attempts).to.equal(3);
    expect(receiver.on('/flaky')).to.have.length(3);
    expect(new Set(receiver.on('/flaky').map((r) => r.headers['x-webhook-id']))).to.deep.equal(
      new Set([event.id]),
    );
    const job = await suite.deps.queues['merchant-webhooks'].getJob(`merchant-webhook-${ids[0]}`);
    expect(job?.opts.attempts).to.equal(12);
    expect(job?.opts.backoff).to.deep.equal({ type: 'exponential', delay: 50 });
    expect(flaky.id).to.be.a('number');
  });

  it('after the last attempt the delivery is failed and the job waits in Failed; a retry (as the dashboard does) sends it', async () => {
    const own = await merchantStore();
    const down = await createEndpoint(suite.deps, own.store.id, {
      url: `${receiver.url}/down`,
      events: ['order.created'],
    });
    let up = false;
    receiver.answer = (r) => (r.path === '/down' && !up ? 503 : 200);
    const [id] = await recordMerchantEvent(suite.deps.knex, own.store.id, {
      id: 'order.created:down-1',
      type: 'order.created',
      data: {},
    });
    const queue = suite.deps.queues['merchant-webhooks'];
    await queue.add(
      'merchant-webhooks',
      { deliveryId: id! },
      { jobId: `down-${id}`, attempts: 2, backoff: { type: 'fixed', delay: 20 } },
    );
    const failed = await waitFor('the job failed', async () => {
      const job = await queue.getJob(`down-${id}`);
      return (await job?.getState()) === 'failed' ? job : undefined;
    });
    const row = await suite.deps.knex('merchant_webhook_deliveries').where('id', id!).first();
    expect(row).to.deep.include({ status: 'failed', response_status: 503, attempts: 2 });
    up = true;
    await failed!.retry();
    await waitFor('delivered after the retry', async () => {
      const d = await suite.deps.knex('merchant_webhook_deliveries').where('id', id!).first();
      return d.status === 'delivered';
    });
    expect(down.id).to.be.a('number');
  });

  describe('SSRF guard', () => {
    const lookups: string[] = [];
    const resolverTo = (address: string) => async (host: string) => {
      lookups.push(host);
      return [{ address, family: (net.isIP(address) === 6 ? 6 : 4) as 4 | 6 }];
    };

    it('knows private, loopback, link-local and reserved addresses', () => {
      for (const a of [
        '127.0.0.1',
        '10.1.2.3',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '0.0.0.0',
        '100.64.0.1',
        '::1',
        '::',
        'fd00::1',
        'fe80::1',
        '::ffff:10.0.0.1',
        '::ffff:127.0.0.1',
        '224.0.0.1',
        'not-an-ip',
      ]) {
        expect(isPrivateAddress(a), a).to.equal(true);
      }
      for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1']) {
        expect(isPrivateAddress(a), a).to.equal(false);
      }
    });

    it('refuses a host resolving to an internal address before any connection is attempted', async () => {
      const own = await merchantStore();
      const endpoint = await createEndpoint(suite.deps, own.store.id, {
        url: 'https://hooks.merchant.test/in',
        events: ['order.created'],
      });
      for (const address of ['10.0.0.5', '169.254.169.254', '192.168.0.10', 'fd00::1', '127.0.0.1', '::1']) {
        const ids = await recordMerchantEvent(suite.deps.knex, own.store.id, {
          id: `order.created:ssrf-${address}`,
          type: 'order.created',
          data: {},
        });
        expect(ids).to.have.length(1);
        const id = ids[0];
        let error: unknown;
        const connections = await connectionsDuring(async () => {
          try {
            await deliverWebhook(suite.deps, id!, { resolver: resolverTo(address) });
          } catch (err) {
            error = err;
            throw err;
          }
        });
        expect(error, address).to.be.instanceOf(SsrfRefusedError);
        expect(connections, address).to.equal(0);
      }
      expect(lookups.every((h) => h === 'hooks.merchant.test')).to.equal(true);
      // A public answer passes the guard (checked without connecting anywhere).
      expect(await vetHost('hooks.merchant.test', resolverTo('93.184.216.34'), false)).to.deep.equal({
        address: '93.184.216.34',
        family: 4,
      });
      expect(endpoint.id).to.be.a('number');
    });

    it('the production processor fails a loopback delivery at once, without retries and without contacting it', async () => {
      const deps: Deps = await isolatedDeps({ MERCHANT_WEBHOOK_RETRY_DELAY_MS: '50' });
      const pool = await WorkerPool.start(deps, {
        registry: { 'merchant-webhooks': createMerchantWebhooksProcessor() },
        queues: ['merchant-webhooks'],
      });
      try {
        const own = await merchantStore();
        await createEndpoint(deps, own.store.id, {
          url: `${receiver.url}/internal`,
          events: ['subscription.created'],
        });
        const [id] = await recordMerchantEvent(deps.knex, own.store.id, {
          id: 'subscription.created:ssrf',
          type: 'subscription.created',
          data: {},
        });
        await dispatchDeliveries(deps, [id!]);
        const job = await waitFor('the job failed', async () => {
          const j = await deps.queues['merchant-webhooks'].getJob(`merchant-webhook-${id}`);
          return (await j?.getState()) === 'failed' ? j : undefined;
        });
        expect(job!.failedReason).to.match(/refused to deliver/);
        expect(await deps.knex('merchant_webhook_deliveries').where('id', id!).first()).to.deep.include({
          status: 'failed',
          attempts: 1,
        });
        expect(receiver.on('/internal')).to.have.length(0);
      } finally {
        await pool.close(500);
      }
    });
  });
});
