import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { cancelOrder } from '../../../shared/services/orders';
import { noteLicensesChanged } from '../../../shared/services/licenses/cache';
import { MAINTENANCE_TASKS } from '../../../shared/services/maintenance';
import { MAINTENANCE_SCHEDULE } from '../../../shared/scheduler';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { expectRefusal, insertLicense, insertOrder, licensedProduct, times, verify } from './support';

const DAY = 86_400_000;

describe('License Verification API: POST /verify', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let plain: Product;

  before(async () => {
    // Rate limits off here: this suite sends far more than 60 requests; answers.test.ts checks the limit.
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    plain = await licensedProduct(store, deps.cipher, { name: 'Pro Tool' });
  });
  after(() => server.close());

  describe('the result object', () => {
    it('answers every field of the spec for a monthly plan', async () => {
      const [plan] = await deps
        .knex('product_plans')
        .insert({ product_id: plain.id, name: 'Monthly', price_minor: 1000, duration: 'monthly' })
        .returning('id');
      const expires = new Date(Date.now() + 10 * DAY - 3_600_000);
      const license = await insertLicense(plain, {
        plan_id: (plan as { id: number }).id,
        starts_at: new Date('2026-11-23T08:00:00Z'),
        expires_at: expires,
        max_activations: 3,
        metadata: { seats: 5, tier: 'gold' },
      });
      const res = await verify(server, { product_id: plain.id, license_key: license.key, nonce: 'n-1' });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.have.all.keys('success', 'data', 'request', 'nonce', 'timestamp');
      expect(res.body.success).to.equal(true);
      expect(res.body.nonce).to.equal('n-1');
      expect(res.body.request, 'the request it answers').to.deep.equal({
        product_id: plain.id,
        license_key_sha256: crypto.createHash('sha256').update(license.key).digest('hex'),
        hwid: null,
      });
      const ts = res.body.timestamp as number;
      expect(Math.abs(ts - Date.now() / 1000)).to.be.below(60);
      const dd = String(expires.getUTCDate()).padStart(2, '0');
      const mm = String(expires.getUTCMonth() + 1).padStart(2, '0');
      expect(res.body.data).to.deep.equal({
        status: 'active',
        lock_type: 'none',
        product: { id: plain.id, name: 'Pro Tool' },
        plan: {
          duration: 'monthly',
          duration_label: 'Monthly',
          start_date: '23-11-2026',
          end_date: `${dd}-${mm}-${expires.getUTCFullYear()}`,
          is_active: true,
        },
        expires_at: expires.toISOString(),
        expires_in_days: 10,
        activations: { current: 0, max: 3, remaining: 3 },
        metadata: { seats: 5, tier: 'gold' },
        entitlements: {},
        not_before: 0,
        grace_ends_at: null,
        checkin_days: 0,
      });
    });

    it('gives a lifetime license null dates and days, and unlimited activations remaining 0', async () => {
      const license = await insertLicense(plain, { max_activations: 0 });
      const res = await verify(server, { product_id: plain.id, license_key: license.key });
      expect(res.status).to.equal(200);
      const data = res.body.data as Record<string, Record<string, unknown>>;
      expect(data.plan).to.deep.equal({
        duration: 'lifetime',
        duration_label: 'Lifetime',
        start_date: '01-11-2026',
        end_date: null,
        is_active: true,
      });
      expect(data.expires_at).to.equal(null);
      expect(data.expires_in_days).to.equal(null);
      expect(data.activations).to.deep.equal({ current: 0, max: 0, remaining: 0 });
      expect(data.metadata).to.equal(null);
      expect(res.body.nonce, 'no nonce sent: null echoed').to.equal(null);
    });

    it('localizes the duration label by Accept-Language (Arabic or English, English by default)', async () => {
      const [plan] = await deps
        .knex('product_plans')
        .insert({ product_id: plain.id, name: 'Yearly', price_minor: 1000, duration: 'yearly' })
        .returning('id');
      const license = await insertLicense(plain, {
        plan_id: (plan as { id: number }).id,
        expires_at: new Date(Date.now() + 300 * DAY),
      });
      const label = async (lang?: string): Promise<unknown> => {
        const res = await verify(
          server,
          { product_id: plain.id, license_key: license.key },
          lang ? { 'Accept-Language': lang } : {},
        );
        return (res.body.data as { plan: { duration_label: string } }).plan.duration_label;
      };
      expect(await label()).to.equal('Yearly');
      expect(await label('ar')).to.equal('سنوي');
      expect(await label('ar-SA,ar;q=0.9,en;q=0.8')).to.equal('سنوي');
      expect(await label('en-US,ar;q=0.5')).to.equal('Yearly');
      expect(await label('fr-FR,ar;q=0.4')).to.equal('سنوي');
      expect(await label('de')).to.equal('Yearly');
    });

    it('accepts the key in lower case and with spaces around it', async () => {
      const license = await insertLicense(plain);
      const res = await verify(server, {
        product_id: plain.id,
        license_key: `  ${license.key.toLowerCase()} `,
      });
      expect(res.status).to.equal(200);
      // An imported key kept in lower case (fixtures allow it) verifies as given and in upper case.
      const imported = await insertLicense(plain, { key: 'acme-low-case-0001' });
      for (const given of [imported.key, imported.key.toUpperCase()]) {
        expect((await verify(server, { product_id: plain.id, license_key: given })).status).to.equal(200);
      }
    });
  });

  describe('states', () => {
    const cases: Array<[string, number, string]> = [
      ['expired', 403, 'LICENSE_EXPIRED'],
      ['suspended', 403, 'LICENSE_SUSPENDED'],
      ['revoked', 403, 'LICENSE_REVOKED'],
      ['generated', 403, 'LICENSE_NOT_ACTIVE'],
    ];
    for (const [status, http, code] of cases) {
      it(`refuses a license in state ${status} with ${code}`, async () => {
        const license = await insertLicense(plain, { status: status as 'active' });
        const res = await verify(server, { product_id: plain.id, license_key: license.key });
        expectRefusal(res, http, code);
        expect(res.body).to.not.have.property('data');
      });
    }

    it('answers an unknown key and a key of another product exactly alike (404 LICENSE_NOT_FOUND)', async () => {
      const other = await licensedProduct(store, deps.cipher);
      const license = await insertLicense(other);
      const foreign = await verify(server, { product_id: plain.id, license_key: license.key, nonce: 'x' });
      const unknown = await verify(server, {
        product_id: plain.id,
        license_key: 'TEST-ZZZZ-ZZZZ-ZZZZ-ZZZZ',
        nonce: 'x',
      });
      expectRefusal(foreign, 404, 'LICENSE_NOT_FOUND');
      // Alike but for the binding, which names each request's own key.
      const strip = (b: Record<string, unknown>): Record<string, unknown> => ({
        ...b,
        timestamp: 0,
        request: null,
      });
      expect(strip(foreign.body)).to.deep.equal(strip(unknown.body));
      expect(foreign.body).to.have.all.keys(
        'success',
        'message',
        'error_code',
        'request',
        'nonce',
        'timestamp',
      );
      expect((foreign.body.request as { product_id: number }).product_id).to.equal(plain.id);
      const noProduct = await verify(server, { product_id: 2_000_000_000, license_key: license.key });
      expectRefusal(noProduct, 404, 'LICENSE_NOT_FOUND');
    });

    it('treats a passed date as expired before the hourly job runs, and the job then marks it', async () => {
      const expiresAt = new Date(Date.now() + 2500);
      const license = await insertLicense(plain, { expires_at: expiresAt });
      expect((await verify(server, { product_id: plain.id, license_key: license.key })).status).to.equal(200);
      // Wait until the date has passed (not a fixed time: the first verify may have been slow).
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now()) + 100),
      );
      // Served from the cache or not, the date decides: no job has run yet.
      expectRefusal(
        await verify(server, { product_id: plain.id, license_key: license.key }),
        403,
        'LICENSE_EXPIRED',
      );
      expect((await deps.knex('licenses').where({ id: license.id }).first('status')).status).to.equal(
        'active',
      );
    });

    it('expires active licenses past their date in the hourly maintenance job, and only those', async () => {
      expect(MAINTENANCE_SCHEDULE).to.deep.include({ task: 'expire-licenses', cron: '0 * * * *' });
      const past = await insertLicense(plain, { expires_at: new Date(Date.now() - DAY) });
      const future = await insertLicense(plain, { expires_at: new Date(Date.now() + DAY) });
      const lifetime = await insertLicense(plain);
      const suspended = await insertLicense(plain, {
        status: 'suspended',
        expires_at: new Date(Date.now() - DAY),
      });
      const result = await MAINTENANCE_TASKS['expire-licenses']!(deps.knex, new Date(), {
        queues: deps.queues,
        tx: deps.tx,
      });
      expect(result.expired).to.be.at.least(1);
      const statusOf = async (id: number): Promise<string> =>
        (await deps.knex('licenses').where({ id }).first('status')).status as string;
      expect(await statusOf(past.id)).to.equal('expired');
      expect(await statusOf(future.id)).to.equal('active');
      expect(await statusOf(lifetime.id)).to.equal('active');
      expect(await statusOf(suspended.id)).to.equal('suspended');
      expectRefusal(
        await verify(server, { product_id: plain.id, license_key: past.key }),
        403,
        'LICENSE_EXPIRED',
      );
      expect((await verify(server, { product_id: plain.id, license_key: future.key })).status).to.equal(200);
    });
  });

  describe('locks and activations', () => {
    let hwidProduct: Product;
    before(async () => {
      hwidProduct = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'hwid',
        license_max_activations: 2,
      });
    });

    it('lock none checks the key only: any hwid, nothing counted', async () => {
      const license = await insertLicense(plain, { max_activations: 1 });
      for (const hwid of ['a', 'b', 'c', undefined]) {
        const res = await verify(server, { product_id: plain.id, license_key: license.key, hwid });
        expect(res.status).to.equal(200);
        expect((res.body.data as { activations: unknown }).activations).to.deep.equal({
          current: 0,
          max: 1,
          remaining: 1,
        });
      }
      expect(await deps.knex('license_activations').where({ license_id: license.id })).to.have.length(0);
    });

    it('hwid lock: requires a hwid, activates new ones while slots remain, passes known ones, refuses beyond', async () => {
      const license = await insertLicense(hwidProduct);
      const call = (hwid?: string): ReturnType<typeof verify> =>
        verify(server, { product_id: hwidProduct.id, license_key: license.key, hwid });
      expectRefusal(await call(), 400, 'HWID_REQUIRED');
      expectRefusal(await call('   '), 400, 'HWID_REQUIRED');
      const activations = async (hwid: string): Promise<unknown> =>
        ((await call(hwid)).body.data as { activations: unknown }).activations;
      expect(await activations('MACHINE-A')).to.deep.equal({ current: 1, max: 2, remaining: 1 });
      expect(await activations('MACHINE-A'), 'known hwid does not count again').to.deep.equal({
        current: 1,
        max: 2,
        remaining: 1,
      });
      expect(await activations('MACHINE-B')).to.deep.equal({ current: 2, max: 2, remaining: 0 });
      expectRefusal(await call('MACHINE-C'), 403, 'ACTIVATION_LIMIT_REACHED');
      expect((await call('MACHINE-A')).status, 'an activated hwid still passes at the limit').to.equal(200);
      expect((await call('MACHINE-B')).status).to.equal(200);

      const rows = await deps.knex('license_activations').where({ license_id: license.id }).orderBy('id');
      expect(rows).to.have.length(2);
      for (const row of rows) {
        expect(row.identifier, 'stored as an HMAC, not the hwid').to.match(/^[0-9a-f]{64}$/);
        expect(row.identifier).to.not.include('MACHINE');
      }
      expect(rows.map((r) => r.hint)).to.deep.equal(['…NE-A', '…NE-B']);
      expect(
        (await deps.knex('licenses').where({ id: license.id }).first('activations_count')).activations_count,
      ).to.equal(2);
    });

    it('20 simultaneous new hwids against max 2 activate exactly 2', async () => {
      const license = await insertLicense(hwidProduct);
      const responses = await times(20, (i) =>
        verify(server, { product_id: hwidProduct.id, license_key: license.key, hwid: `CONCURRENT-${i}` }),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).to.have.length(2);
      expect(statuses.filter((s) => s === 403)).to.have.length(18);
      for (const r of responses.filter((x) => x.status === 403))
        expectRefusal(r, 403, 'ACTIVATION_LIMIT_REACHED');
      expect(await deps.knex('license_activations').where({ license_id: license.id })).to.have.length(2);
      expect(
        (await deps.knex('licenses').where({ id: license.id }).first('activations_count')).activations_count,
      ).to.equal(2);
    });

    it('20 simultaneous calls with the same new hwid take one slot', async () => {
      const single = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'hwid',
        license_max_activations: 1,
      });
      const license = await insertLicense(single);
      const responses = await times(20, () =>
        verify(server, { product_id: single.id, license_key: license.key, hwid: 'SAME-MACHINE' }),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(Array.from({ length: 20 }, () => 200));
      expect(await deps.knex('license_activations').where({ license_id: license.id })).to.have.length(1);
      expectRefusal(
        await verify(server, { product_id: single.id, license_key: license.key, hwid: 'OTHER' }),
        403,
        'ACTIVATION_LIMIT_REACHED',
      );
    });

    it('unlimited (max 0) activates every new hwid, 20 at once included', async () => {
      const unlimited = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'hwid',
        license_max_activations: 0,
      });
      const license = await insertLicense(unlimited);
      const responses = await times(20, (i) =>
        verify(server, { product_id: unlimited.id, license_key: license.key, hwid: `U-${i}` }),
      );
      expect(responses.every((r) => r.status === 200)).to.equal(true);
      const last = await verify(server, { product_id: unlimited.id, license_key: license.key, hwid: 'U-0' });
      expect((last.body.data as { activations: unknown }).activations).to.deep.equal({
        current: 20,
        max: 0,
        remaining: 0,
      });
    });

    it('ip lock counts the client address; X-Forwarded-For is ignored without TRUST_PROXY', async () => {
      const ipProduct = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'ip',
        license_max_activations: 1,
      });
      const license = await insertLicense(ipProduct);
      const first = await verify(
        server,
        { product_id: ipProduct.id, license_key: license.key },
        { 'X-Forwarded-For': '203.0.113.7' },
      );
      expect(first.status).to.equal(200);
      expect((first.body.data as { lock_type: string }).lock_type).to.equal('ip');
      // Another claimed address is still 127.0.0.1 to this server: passes as the known address.
      const spoofed = await verify(
        server,
        { product_id: ipProduct.id, license_key: license.key, hwid: 'ignored' },
        { 'X-Forwarded-For': '198.51.100.9' },
      );
      expect(spoofed.status).to.equal(200);
      const [row] = await deps.knex('license_activations').where({ license_id: license.id });
      expect(row.hint).to.equal('…1');
    });

    it('ip lock behind a trusted proxy takes the address from X-Forwarded-For, with the limit', async () => {
      const proxied = await isolatedDeps({ RATE_LIMITS: 'off', TRUST_PROXY: '1' });
      const proxyServer = await startServer(proxied);
      try {
        const ipProduct = await licensedProduct(store, deps.cipher, {
          license_lock_type: 'ip',
          license_max_activations: 2,
        });
        const license = await insertLicense(ipProduct);
        const from = (ip: string): ReturnType<typeof verify> =>
          verify(
            proxyServer,
            { product_id: ipProduct.id, license_key: license.key },
            { 'X-Forwarded-For': ip },
          );
        expect((await from('203.0.113.1')).status).to.equal(200);
        expect((await from('203.0.113.2')).status).to.equal(200);
        expect((await from('203.0.113.1')).status).to.equal(200);
        expectRefusal(await from('203.0.113.3'), 403, 'ACTIVATION_LIMIT_REACHED');
        const concurrent = await insertLicense(ipProduct);
        const responses = await times(20, (i) =>
          verify(
            proxyServer,
            { product_id: ipProduct.id, license_key: concurrent.key },
            { 'X-Forwarded-For': `198.51.100.${i + 1}` },
          ),
        );
        expect(responses.filter((r) => r.status === 200)).to.have.length(2);
      } finally {
        await proxyServer.close();
      }
    });
  });

  describe('cache', () => {
    it('answers a repeated verify without Postgres', async () => {
      const hwidProduct = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'hwid',
        license_max_activations: 2,
      });
      const license = await insertLicense(hwidProduct);
      const body = { product_id: hwidProduct.id, license_key: license.key, hwid: 'CACHED-1' };
      expect((await verify(server, body)).status).to.equal(200);
      expect((await verify(server, body)).status).to.equal(200);
      let queries = 0;
      const count = (): void => {
        queries += 1;
      };
      deps.knex.on('query', count);
      try {
        for (let i = 0; i < 5; i += 1) expect((await verify(server, body)).status).to.equal(200);
      } finally {
        deps.knex.off('query', count);
      }
      expect(queries).to.equal(0);
    });

    it('reads a busy license once when its entry is missing, however many verifies are in flight', async () => {
      const hwidProduct = await licensedProduct(store, deps.cipher, {
        license_lock_type: 'hwid',
        license_max_activations: 2,
      });
      const license = await insertLicense(hwidProduct);
      const body = { product_id: hwidProduct.id, license_key: license.key, hwid: 'BUSY-1' };
      // Activated, then the counters move (as a change would), so the next verifies all miss at once.
      expect((await verify(server, body)).status).to.equal(200);
      await noteLicensesChanged(deps);
      const queries: string[] = [];
      const count = (q: { sql: string }): void => {
        queries.push(q.sql);
      };
      deps.knex.on('query', count);
      try {
        const answers = await times(30, () => verify(server, body));
        expect(answers.map((a) => a.status)).to.deep.equal(new Array(30).fill(200));
      } finally {
        deps.knex.off('query', count);
      }
      expect(queries.filter((sql) => sql.includes('from "licenses"'))).to.have.length(1);
      expect(queries.filter((sql) => sql.includes('insert into license_activations'))).to.have.length(1);
    });

    it('sees a revoke through cancelOrder at once, on a license it had cached', async () => {
      const orderId = await insertOrder(deps.knex, store);
      const license = await insertLicense(plain, { order_id: orderId });
      const body = { product_id: plain.id, license_key: license.key };
      expect((await verify(server, body)).status).to.equal(200);
      expect((await verify(server, body)).status).to.equal(200);
      // Another process's deps: the revoke reaches this server only through Redis.
      const other = await isolatedDeps({ QUEUE_PREFIX: deps.config.queuePrefix });
      const result = await cancelOrder(other, orderId, 'cancelled');
      expect(result.licensesRevoked).to.equal(1);
      expectRefusal(await verify(server, body), 403, 'LICENSE_REVOKED');
    });

    it('sees a revoke made inside a caller’s transaction once that transaction commits', async () => {
      // How a writer calls cancelOrder within its own unit of work (the manual-payment expiry does).
      const orderId = await insertOrder(deps.knex, store);
      const license = await insertLicense(plain, { order_id: orderId });
      const body = { product_id: plain.id, license_key: license.key };
      expect((await verify(server, body)).status).to.equal(200);
      await deps.tx(async (uow) => {
        await cancelOrder({ uow }, orderId, 'cancelled');
        // Not committed yet: verify still reads (and caches) the active license.
        expect((await verify(server, body)).status).to.equal(200);
      });
      expectRefusal(await verify(server, body), 403, 'LICENSE_REVOKED');
    });

    it('sees a refund the same way', async () => {
      const orderId = await insertOrder(deps.knex, store);
      const license = await insertLicense(plain, { order_id: orderId });
      const body = { product_id: plain.id, license_key: license.key };
      expect((await verify(server, body)).status).to.equal(200);
      await cancelOrder(deps, orderId, 'refunded');
      expectRefusal(await verify(server, body), 403, 'LICENSE_REVOKED');
    });
  });

  describe('bad input', () => {
    it('answers malformed input with 4xx in the License envelope, never 5xx', async () => {
      const license = await insertLicense(plain);
      const bodies: unknown[] = [
        {},
        { product_id: plain.id },
        { license_key: license.key },
        { product_id: 'abc', license_key: license.key },
        { product_id: -1, license_key: license.key },
        { product_id: 1.5, license_key: license.key },
        { product_id: 99_999_999_999, license_key: license.key },
        { product_id: plain.id, license_key: '' },
        { product_id: plain.id, license_key: 'x'.repeat(101) },
        { product_id: plain.id, license_key: 42 },
        { product_id: plain.id, license_key: ['a'] },
        { product_id: plain.id, license_key: { $ne: null } },
        { product_id: plain.id, license_key: license.key, hwid: 'h'.repeat(257) },
        { product_id: plain.id, license_key: license.key, hwid: 12 },
        { product_id: plain.id, license_key: license.key, nonce: 'has space' },
        { product_id: plain.id, license_key: license.key, nonce: 'n'.repeat(129) },
        [],
      ];
      for (const body of bodies) {
        const res = await server.request('/verify', { method: 'POST', json: body });
        expect(res.status, `${JSON.stringify(body)} -> ${res.text}`).to.equal(422);
        expect(res.body).to.include({ success: false, error_code: 'VALIDATION_FAILED' });
        expect(res.body.errors).to.be.an('object');
        expect(res.headers.get('x-signature')).to.be.a('string');
      }
      // NUL is refused by the platform-wide input layer before the License route (like malformed JSON):
      // the same 422 in the License envelope, not signed.
      const nul = await server.request('/verify', {
        method: 'POST',
        json: { product_id: plain.id, license_key: license.key, hwid: 'a\u0000b' },
      });
      expect(nul.status).to.equal(422);
      expect(nul.body).to.include({ success: false, error_code: 'VALIDATION_FAILED' });
      const first = await server.request('/verify', { method: 'POST', json: {} });
      expect(first.body.errors).to.have.keys('product_id', 'license_key');
    });

    it('answers broken JSON and other content types with 4xx', async () => {
      const broken = await server.request('/verify', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"product_id": 1,',
      });
      expect(broken.status).to.equal(400);
      expect(broken.body).to.include({ success: false, error_code: 'INVALID_REQUEST' });
      const scalar = await server.request('/verify', { method: 'POST', json: 'just a string' });
      expect(scalar.status).to.equal(400);
      const form = await server.request('/verify', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `product_id=${plain.id}&license_key=nope`,
      });
      expect(form.status).to.equal(404);
      expect(form.body).to.include({ error_code: 'LICENSE_NOT_FOUND' });
      // GET /verify is the License API's index of its operations (api/platform/interface-index.ts), unsigned.
      const get = await server.request('/verify');
      expect(get.status).to.equal(200);
      expect(get.headers.get('x-signature')).to.equal(null);
    });
  });
});
