import crypto from 'node:crypto';
import { rewire } from '../../../shared/create-services';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps, sharedDeps } from '../../helpers/deps';
import { ProbeResponse, ProbeServer, startGuardServer } from './guard-app';

const TOO_MANY = 'Too many requests. Please try again later.';

const countStatuses = (responses: ProbeResponse[]): Record<number, number> =>
  responses.reduce<Record<number, number>>(
    (acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }),
    {},
  );

const times = <T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => fn(i)));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits', () => {
  const servers: ProbeServer[] = [];
  const serve = async (env: NodeJS.ProcessEnv = {}): Promise<ProbeServer> => {
    const server = await startGuardServer(await isolatedDeps(env));
    servers.push(server);
    return server;
  };
  let store: Store;

  before(async () => {
    // Binds the models to the run's database before the first row is built.
    await sharedDeps();
    store = await createStore({ domains: [`rl-${crypto.randomBytes(4).toString('hex')}.test`] });
  });
  after(() => Promise.all(servers.map((s) => s.close())));

  describe('Embed API', () => {
    it('lets exactly 30 of 60 simultaneous requests through a 30-per-minute limit', async () => {
      const server = await serve();
      const responses = await times(60, () =>
        server.request('/api/embed/echo', {
          headers: { 'X-Embed-Key': store.embed_key, Origin: 'https://a.test' },
        }),
      );
      expect(countStatuses(responses)).to.deep.equal({ 200: 30, 429: 30 });

      // Each admitted request saw its own count: remaining 29 down to 0, each exactly once.
      const remaining = responses
        .filter((r) => r.status === 200)
        .map((r) => Number(r.headers['x-ratelimit-remaining']))
        .sort((a, b) => a - b);
      expect(remaining).to.deep.equal(Array.from({ length: 30 }, (_, i) => i));

      for (const res of responses.filter((r) => r.status === 429)) {
        expect(res.body).to.have.all.keys('success', 'message', 'error_code', 'retry_after');
        expect(res.body).to.include({ success: false, message: TOO_MANY, error_code: 'RATE_LIMIT_EXCEEDED' });
        const retryAfter = res.body.retry_after as number;
        expect(retryAfter).to.be.within(1, 60);
        expect(res.headers['retry-after']).to.equal(String(retryAfter));
        expect(res.headers['x-ratelimit-limit']).to.equal('30');
        expect(res.headers['x-ratelimit-remaining']).to.equal('0');
        expect(res.headers['access-control-allow-origin']).to.equal('https://a.test');
        expect(res.headers['access-control-expose-headers']).to.equal(
          'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
        );
      }
    });

    it('cuts an over-limit client before the embed key is even looked up', async () => {
      const server = await serve();
      await times(30, () =>
        server.request('/api/embed/echo', { headers: { 'X-Embed-Key': store.embed_key } }),
      );
      const res = await server.request('/api/embed/echo', { headers: { 'X-Embed-Key': 'emb_pk_not_a_key' } });
      expect(res.status).to.equal(429);
      expect(res.body.error_code).to.equal('RATE_LIMIT_EXCEEDED');
    });

    it('limits per phone number when the body names one, and skips the limit when it does not', async () => {
      const server = await serve();
      const start = (phone?: string) =>
        server.request('/api/embed/phone-probe', { method: 'POST', json: phone ? { phone } : {} });
      const first = await Promise.all([start('500000001'), start('500000001'), start('500000001')]);
      expect(first.map((r) => r.status)).to.deep.equal([200, 200, 200]);

      const fourth = await start('500000001');
      expect(fourth.status).to.equal(429);
      expect(fourth.body.error_code).to.equal('RATE_LIMIT_EXCEEDED');
      expect(Number(fourth.headers['retry-after'])).to.be.within(1, 600);
      expect(fourth.headers['x-ratelimit-limit']).to.equal('3');

      expect((await start('500000002')).status).to.equal(200);
      const noPhone = await start();
      expect(noPhone.status).to.equal(200);
      expect(noPhone.headers).not.to.have.property('x-ratelimit-limit');
    });
  });

  describe('Merchant, Storefront and License APIs', () => {
    let server: ProbeServer;
    before(async () => {
      server = await serve();
    });

    const expectMessageOnly429 = (responses: ProbeResponse[], limit: string): void => {
      expect(countStatuses(responses)).to.deep.equal({ 200: 60, 429: 1 });
      const limited = responses.find((r) => r.status === 429);
      expect(limited?.body).to.deep.equal({ message: TOO_MANY });
      expect(limited?.headers['x-ratelimit-limit']).to.equal(limit);
      expect(limited?.headers['x-ratelimit-remaining']).to.equal('0');
      expect(Number(limited?.headers['retry-after'])).to.be.within(1, 60);
    };

    it('limits the Merchant API to 60 a minute per token, answering 429 with a message only', async () => {
      const token = await merchantToken(store);
      const responses = await times(61, () =>
        server.request('/shawarma/store', { headers: { Authorization: `Bearer ${token}` } }),
      );
      expectMessageOnly429(responses, '60');

      // Another token of the same store has its own allowance.
      const other = await merchantToken(store);
      const res = await server.request('/shawarma/store', { headers: { Authorization: `Bearer ${other}` } });
      expect(res.status).to.equal(200);
    });

    it('limits the Storefront to 60 a minute per IP, answering 429 with a message only', async () => {
      const domain = (await store.$relatedQuery('domains'))[0].domain;
      const responses = await times(61, () =>
        server.request('/api/store-probe', { headers: { Host: domain } }),
      );
      expectMessageOnly429(responses, '60');
    });

    it('limits license verification to 60 a minute per IP, answering 429 with a message only', async () => {
      const responses = await times(61, () => server.request('/verify', { method: 'POST', json: {} }));
      expectMessageOnly429(responses, '60');
    });
  });

  describe('analytics', () => {
    it('counts every event of a batch against 120 events a minute', async () => {
      const server = await serve();
      const domain = (await store.$relatedQuery('domains'))[0].domain;
      const batch = (size: number) =>
        server.request('/api/storefront/analytics/collect/batch', {
          method: 'POST',
          headers: { Host: domain },
          json: { events: Array.from({ length: size }, () => ({ type: 'event', event_name: 'click' })) },
        });

      const remaining: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const res = await batch(30);
        expect(res.status).to.equal(202);
        expect(res.body).to.deep.equal({ status: 'ok' });
        remaining.push(String(res.headers['x-ratelimit-remaining']));
      }
      expect(remaining).to.deep.equal(['90', '60', '30', '0']);

      const over = await batch(1);
      expect(over.status).to.equal(429);
      expect(over.headers['x-ratelimit-limit']).to.equal('120');
      expect(Number(over.headers['retry-after'])).to.be.within(1, 60);
    });
  });

  describe('client address', () => {
    const fromAddress = (server: ProbeServer, address: string) =>
      server.request('/api/embed/small-probe', { headers: { 'X-Forwarded-For': address } });

    it('takes the client IP from X-Forwarded-For with TRUST_PROXY=1', async () => {
      const server = await serve({ TRUST_PROXY: '1' });
      const first = await times(6, () => fromAddress(server, '203.0.113.1'));
      expect(countStatuses(first)).to.deep.equal({ 200: 5, 429: 1 });
      expect((await fromAddress(server, '203.0.113.2')).status).to.equal(200);
    });

    it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
      const server = await serve({ TRUST_PROXY: '0' });
      const first = await times(6, () => fromAddress(server, '203.0.113.1'));
      expect(countStatuses(first)).to.deep.equal({ 200: 5, 429: 1 });
      expect((await fromAddress(server, '203.0.113.2')).status).to.equal(429);
    });
  });

  describe('windows and switches', () => {
    it('opens again once the window has passed (a 60 s window scaled to 1 s)', async () => {
      const server = await serve({ RATE_LIMIT_WINDOW_SCALE: String(1 / 60) });
      const burst = await times(6, () => server.request('/api/embed/small-probe'));
      expect(countStatuses(burst)).to.deep.equal({ 200: 5, 429: 1 });
      const limited = burst.find((r) => r.status === 429);
      expect(limited?.headers['retry-after']).to.equal('1');
      expect(limited?.body.retry_after).to.equal(1);

      await sleep(1_100);
      const after = await server.request('/api/embed/small-probe');
      expect(after.status).to.equal(200);
      expect(after.headers['x-ratelimit-remaining']).to.equal('4');
    });

    it('lets everything through with RATE_LIMITS=off', async () => {
      const server = await serve({ RATE_LIMITS: 'off' });
      const responses = await times(40, () =>
        server.request('/api/embed/echo', { headers: { 'X-Embed-Key': store.embed_key } }),
      );
      expect(countStatuses(responses)).to.deep.equal({ 200: 40 });
      expect(responses[0].headers).not.to.have.property('x-ratelimit-limit');
    });

    it('answers 503 in the envelope, not 200 or 500, while Redis is unreachable', async () => {
      const deps = await isolatedDeps();
      const unreachable = new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      // Rewired: the process's services are built again over the dead connection (shared/create-services.ts).
      const broken: Deps = rewire(deps, { redis: unreachable });
      const server = await startGuardServer(broken);
      servers.push(server);
      try {
        const res = await server.request('/api/embed/echo', {
          headers: { 'X-Embed-Key': store.embed_key, Origin: 'https://a.test' },
        });
        expect(res.status).to.equal(503);
        expect(res.body).to.deep.equal({
          success: false,
          error_code: 'service_unavailable',
          message: 'Service temporarily unavailable. Please try again later.',
        });
        expect(res.headers['access-control-allow-origin']).to.equal('https://a.test');
      } finally {
        unreachable.disconnect();
      }
    });
  });
});
