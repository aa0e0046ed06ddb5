import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { ConfigError, loadConfig, startupWarnings } from '../../../shared/config';
import { createDeps, Deps } from '../../../shared/deps';
import { createLogger } from '../../../shared/logger';
import { resolveAppSecret } from '../../../shared/secrets';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { isolatedDeps, sharedDeps, testConfig } from '../../helpers/deps';
import { TEST_QUEUE_PREFIX } from '../../helpers/env';
import { startServer, TestServer } from '../../helpers/http';

/** The client IP behind proxies, and secrets kept out of logs and public places. */
describe('operations security', () => {
  describe('client IP behind trusted proxies (TRUST_PROXY, TRUST_PROXY_HOPS)', () => {
    async function limitedAfter(env: NodeJS.ProcessEnv, forwarded: (i: number) => string): Promise<number[]> {
      const deps = await isolatedDeps({ TRUST_PROXY: '1', ...env });
      const server = await startServer(deps);
      try {
        const store = await createStore();
        const statuses: number[] = [];
        // The Embed API allows 30 requests a minute per client IP.
        for (let i = 0; i < 32; i += 1) {
          const res = await server.request('/api/embed/product/999999', {
            headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': forwarded(i) },
          });
          statuses.push(res.status);
        }
        return statuses;
      } finally {
        await server.close();
      }
    }

    it('takes the address the proxy saw, not a leftmost entry the client wrote itself', async () => {
      const statuses = await limitedAfter({}, (i) => `10.66.${i}.1, 203.0.113.7`);
      expect(statuses.slice(0, 30)).to.not.include(429);
      expect(statuses.slice(30)).to.deep.equal([429, 429]);
    });

    it('counts TRUST_PROXY_HOPS entries from the right', async () => {
      const statuses = await limitedAfter(
        { TRUST_PROXY_HOPS: '2' },
        (i) => `10.67.${i}.1, 203.0.113.8, 10.0.0.${i}`,
      );
      expect(statuses.slice(30)).to.deep.equal([429, 429]);
    });
  });

  describe('logs', () => {
    const lines: string[] = [];
    let deps: Deps;
    let server: TestServer;

    before(async () => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      });
      deps = await createDeps(testConfig({ TRUST_PROXY: '1', QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}_oplogs` }), {
        role: 'test',
        pool: { min: 0, max: 2 },
        logger: createLogger('debug', 'web', sink),
      });
      server = await startServer(deps);
    });
    after(async () => {
      await server.close();
      await deps.close();
    });

    it('never write a capability path or token, unmatched routes included', async () => {
      const store = await createStore();
      await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
      const product = await createProduct(store);
      const checkout = await guestCheckout(server, store, { product_id: product.id });
      const secret = checkout.checkoutUrl;
      // A CORS preflight, a malformed /pay body, unknown methods and sub-paths: none matches a route.
      await server.request(`/api/embed/payment/status/${secret}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.example.test', 'Access-Control-Request-Method': 'GET' },
      });
      await server.request(`/pay/${secret}`, {
        method: 'POST',
        body: '{"broken',
        headers: { 'Content-Type': 'application/json' },
      });
      await server.request(`/pay/${secret}/extra`);
      await server.request(`/sandbox/checkout/${secret}/x`, { method: 'PUT' });
      await server.request(`/pay/payments/1-${secret}/nothing`);
      await server.request(`/nowhere?embed_key=${store.embed_key}&token=cet_${secret}`, {
        headers: { Authorization: `Bearer cet_${secret}` },
      });
      const logged = lines.join('');
      expect(logged).to.include('"msg":"request"');
      expect(logged).to.include('/pay/[redacted]');
      for (const needle of [secret, store.embed_key]) expect(logged).to.not.include(needle);
    });
  });

  describe('/metrics', () => {
    it('requires METRICS_TOKEN as a bearer token when set', async () => {
      const token = 'metrics-token-0123456789';
      const server = await startServer(await isolatedDeps({ METRICS_TOKEN: token }));
      try {
        const anonymous = await server.request('/metrics');
        expect(anonymous.status).to.equal(401);
        expect(
          (await server.request('/metrics', { headers: { Authorization: 'Bearer wrong-token-000000' } }))
            .status,
        ).to.equal(401);
        const scraped = await server.request('/metrics', { headers: { Authorization: `Bearer ${token}` } });
        expect(scraped.status).to.equal(200);
        expect(scraped.text).to.include('http_requests_total');
      } finally {
        await server.close();
      }
    });

    it('is not served in production without a token', async () => {
      const server = await startServer(await isolatedDeps({ NODE_ENV: 'production' }));
      try {
        const res = await server.request('/metrics');
        expect(res.status).to.equal(404);
        expect(res.text).to.not.include('http_requests_total');
      } finally {
        await server.close();
      }
    });
  });

  describe('/sandbox', () => {
    it('is off in production by default and with SANDBOX_ENABLED=0, mounted with SANDBOX_ENABLED=1', async () => {
      const off = await startServer(await isolatedDeps({ NODE_ENV: 'production', SANDBOX_ENABLED: '0' }));
      const byDefault = await startServer(await isolatedDeps({ NODE_ENV: 'production' }));
      const on = await startServer(await isolatedDeps({ NODE_ENV: 'production', SANDBOX_ENABLED: '1' }));
      try {
        for (const server of [off, byDefault]) {
          const absent = await server.request('/sandbox/checkout/abc');
          expect(absent.status).to.equal(404);
          expect(absent.headers.get('content-type')).to.match(/json/);
        }
        // Mounted: the sandbox's own page answers (an unknown payment is its HTML 404).
        const page = await on.request('/sandbox/checkout/abc');
        expect(page.headers.get('content-type')).to.match(/^text\/html/);
      } finally {
        await off.close();
        await byDefault.close();
        await on.close();
      }
    });

    it('is announced at start when enabled in production', () => {
      const env = {
        NODE_ENV: 'production',
        APP_SECRET: 'x'.repeat(32),
        METRICS_TOKEN: 'metrics-token-0123456789',
      };
      expect(startupWarnings(loadConfig(env)), 'off by default').to.deep.equal([]);
      expect(startupWarnings(loadConfig({ ...env, SANDBOX_ENABLED: '0' }))).to.deep.equal([]);
      const [warning] = startupWarnings(loadConfig({ ...env, SANDBOX_ENABLED: '1' }));
      expect(warning).to.include('sandbox').and.to.include('SANDBOX_ENABLED=1');
      expect(startupWarnings(loadConfig({})), 'outside production').to.deep.equal([]);
    });
  });

  describe('APP_SECRET', () => {
    it('production refuses to start without it, naming APP_SECRET and how to make one', () => {
      let error: Error | null = null;
      try {
        loadConfig({ NODE_ENV: 'production', METRICS_TOKEN: 'metrics-token-0123456789' });
      } catch (err) {
        error = err as Error;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal('APP_SECRET');
      expect(error!.message).to.include('APP_SECRET').and.to.include('openssl rand -hex 32');
      expect(() => loadConfig({ NODE_ENV: 'production', APP_SECRET: 'short' })).to.throw(
        ConfigError,
        /APP_SECRET/,
      );
      expect(loadConfig({}).appSecret, 'development generates one (.data/app-secret)').to.equal(undefined);
    });

    it('is never kept in plain text in platform_settings; a generated one lives in a private file', async () => {
      const { knex } = await sharedDeps();
      const dir = await mkdtemp(path.join(os.tmpdir(), 'app-secret-'));
      const file = path.join(dir, 'app-secret');
      try {
        // An earlier version's plain-text row is moved out of the database into the file.
        const legacy = 'legacy-secret-legacy-secret-legacy-secret-01';
        await knex('platform_settings')
          .insert({ key: 'app_secret', value: legacy })
          .onConflict('key')
          .merge();
        expect(await resolveAppSecret(knex, undefined, { file })).to.equal(legacy);
        expect(await knex('platform_settings').where({ key: 'app_secret' }).first()).to.equal(undefined);
        expect((await readFile(file, 'utf8')).trim()).to.equal(legacy);
        expect((await stat(file)).mode & 0o077, 'readable by its owner only').to.equal(0);
        // Every later start reads the same file; nothing goes back into the database.
        expect(await resolveAppSecret(knex, undefined, { file })).to.equal(legacy);
        const given = 'given-secret-given-secret-given-secret-0001';
        expect(await resolveAppSecret(knex, given, { file })).to.equal(given);
        const values = await knex('platform_settings').pluck('value');
        expect(values).to.not.include(legacy).and.to.not.include(given);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
