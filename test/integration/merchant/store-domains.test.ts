import { expect } from 'chai';
import knexFactory from 'knex';
import { knexConfig } from '../../../db/knexfile';
import * as ownershipMigration from '../../../db/migrations/20261127100000_store_domain_ownership';
import { rewire } from '../../../shared/create-services';
import type { Deps } from '../../../shared/deps';
import { createSession, formToken } from '../../../shared/services/staff/sessions';
import { sha256 } from '../../../shared/crypto';
import { PENDING_DOMAIN_DAYS } from '../../../shared/services/stores/domains';
import { Store } from '../../../db/models';
import { loadFixture } from '../../../shared/services/seed';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { TEST_DB_NAME, testDatabaseUrl } from '../../helpers/env';
import { startServer, type TestResponse, type TestServer } from '../../helpers/http';
import { call, expectEnvelope, merchantStore, type MerchantStore } from './support';

/**
 * Store domain ownership (docs/merchant.md, "Store domains"): a domain is claimed pending, picks no store
 * until its DNS TXT record holds the value made for it (looked up through the injected resolver, by the
 * `verify-domains` task run through `POST /__dev/tasks/{name}` or on demand), and names that can never be
 * a store's (the platform host, localhost, IP addresses, another store's domain) are refused.
 */
describe('Store domains: claimed pending, proven by DNS, refused when not the store’s', function () {
  this.timeout(30_000);
  const PLATFORM_HOST = 'platform.matjar.test';
  /** The fake DNS: TXT records by name. A name without records fails as ENOTFOUND, as the real one. */
  const dns = new Map<string, string[][]>();
  const looked: string[] = [];
  let deps: Deps;
  let server: TestServer;
  let a: MerchantStore;
  let b: MerchantStore;
  let n = 0;

  before(async () => {
    const base = await isolatedDeps({ RATE_LIMITS: 'off', PUBLIC_BASE_URL: `https://${PLATFORM_HOST}` });
    deps = rewire(base, {
      resolveTxt: (name) => {
        looked.push(name);
        const records = dns.get(name);
        if (records) return Promise.resolve(records);
        return Promise.reject(Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' }));
      },
    });
    server = await startServer(deps);
  });
  after(async () => {
    await server.close();
  });
  beforeEach(async () => {
    dns.clear();
    looked.length = 0;
    a = await merchantStore({ name: 'Store A' });
    b = await merchantStore({ name: 'Store B' });
    n += 1;
  });

  const api = (m: MerchantStore, method: string, path: string, json?: unknown) =>
    call(server, m.token, method, path, json);
  const domainsOf = async (m: MerchantStore) => {
    const res = await api(m, 'GET', '/shawarma/store');
    expectEnvelope(res, 200);
    return res.body.data as {
      domains: string[];
      pending_domains: { domain: string; txt_name: string; txt_value: string }[];
    };
  };
  const storefront = (host: string) =>
    server.request('/api/products', { headers: { Host: host, 'X-Forwarded-For': '127.0.0.1' } });
  const runTask = async (name: string) => {
    const res = await server.request(`/__dev/tasks/${name}`, { method: 'POST' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ ran: name });
  };
  const refusedNamingDomains = (res: TestResponse) => {
    expectEnvelope(res, 422);
    expect(Object.keys(res.body.errors as object)).to.deep.equal(['domains']);
  };

  it('a new domain is pending with its TXT record, and picks no store on the Storefront', async () => {
    await createProduct(a.store, { name: 'Shop item' });
    const host = `shop${n}.acme.test`;
    const res = await api(a, 'PATCH', '/shawarma/store', { domains: [`Shop${n}.Acme.test`] });
    expectEnvelope(res, 200);
    const answered = res.body.data as { domains: string[]; pending_domains: unknown[] };
    expect(answered.domains).to.deep.equal([]);
    const { domains, pending_domains: pending } = await domainsOf(a);
    expect(domains).to.deep.equal([]);
    expect(pending).to.have.length(1);
    expect(pending[0]!.domain).to.equal(host);
    expect(pending[0]!.txt_name).to.equal(`_matjar-verify.${host}`);
    expect(pending[0]!.txt_value).to.match(/^matjar-verify=[A-Za-z0-9_-]{32}$/);
    expect(answered.pending_domains).to.deep.equal(pending);
    // Unguessable and per claim: another store's record value is another value.
    await api(b, 'PATCH', '/shawarma/store', { domains: [`other${n}.acme.test`] });
    expect((await domainsOf(b)).pending_domains[0]!.txt_value).to.not.equal(pending[0]!.txt_value);

    const served = await storefront(host);
    expect(served.status, served.text).to.equal(400);
    expect(served.text).to.not.contain('Shop item');
    // Nor as the Origin of a storefront calling the API on a shared host.
    const fromOrigin = await server.request('/api/products', { headers: { Origin: `https://${host}` } });
    expect(fromOrigin.status, fromOrigin.text).to.equal(400);
  });

  it('the verify-domains task marks a domain verified when its TXT record holds the value; then it serves', async () => {
    await createProduct(a.store, { name: 'Proven item' });
    const host = `proven${n}.acme.test`;
    const wrong = `wrong${n}.acme.test`;
    expectEnvelope(await api(a, 'PATCH', '/shawarma/store', { domains: [host, wrong] }), 200);
    const pending = (await domainsOf(a)).pending_domains;
    const record = pending.find((d) => d.domain === host)!;
    // The value split in two character strings, as DNS answers a long record, beside an unrelated one.
    const half = Math.floor(record.txt_value.length / 2);
    dns.set(record.txt_name, [
      ['v=spf1 -all'],
      [record.txt_value.slice(0, half), record.txt_value.slice(half)],
    ]);
    // Another store's value (or anything else) proves nothing.
    dns.set(`_matjar-verify.${wrong}`, [[`${record.txt_value}x`], ['matjar-verify=guess']]);

    await runTask('verify-domains');
    expect(looked).to.include.members([record.txt_name, `_matjar-verify.${wrong}`]);
    const after = await domainsOf(a);
    expect(after.domains).to.deep.equal([host]);
    expect(after.pending_domains.map((d) => d.domain)).to.deep.equal([wrong]);

    const served = await storefront(host);
    expect(served.status, served.text).to.equal(200);
    expect(served.text).to.contain('Proven item');
    const fromOrigin = await server.request('/api/products', { headers: { Origin: `https://${host}` } });
    expect(fromOrigin.text).to.contain('Proven item');
    expect((await storefront(wrong)).status).to.equal(400);
  });

  it('POST /shawarma/store/domains/{domain}/verify looks the record up on demand and answers the state', async () => {
    await createProduct(a.store, { name: 'On demand item' });
    const host = `ondemand${n}.acme.test`;
    expectEnvelope(await api(a, 'PATCH', '/shawarma/store', { domains: [host] }), 200);
    const [record] = (await domainsOf(a)).pending_domains;

    const notYet = await api(a, 'POST', `/shawarma/store/domains/${host}/verify`);
    expectEnvelope(notYet, 200);
    expect(notYet.body.data).to.deep.include({ domain: host, status: 'pending', verified_at: null });
    expect((await storefront(host)).status).to.equal(400);

    dns.set(record!.txt_name, [[record!.txt_value]]);
    const now = await api(a, 'POST', `/shawarma/store/domains/${host.toUpperCase()}/verify`);
    expectEnvelope(now, 200);
    expect(now.body.data).to.deep.include({ domain: host, status: 'verified' });
    const served = await storefront(host);
    expect(served.status, served.text).to.equal(200);
    expect(served.text).to.contain('On demand item');

    // Another store's domain, or one nobody holds, is a 404 in the Merchant envelope.
    expectEnvelope(await api(b, 'POST', `/shawarma/store/domains/${host}/verify`), 404);
    expectEnvelope(await api(a, 'POST', `/shawarma/store/domains/nobody${n}.acme.test/verify`), 404);
  });

  it('refuses the platform host, localhost, IP addresses and non-host names, naming `domains`', async () => {
    for (const bad of [
      PLATFORM_HOST,
      'localhost',
      'shop.localhost',
      '127.0.0.1',
      '10.1.2.3',
      '127.1',
      '::1',
      '[::1]',
      '2001:db8::1',
      'https://shop.acme.test',
      'shop.acme.test:8080',
      'shop.acme.test/path',
      'intranet',
      '-bad.acme.test',
    ]) {
      const res = await api(a, 'PATCH', '/shawarma/store', { domains: [`fine${n}.acme.test`, bad] });
      refusedNamingDomains(res);
      expect(res.text, bad).to.contain(bad.replace(/^\[|\]$/g, '').slice(0, 9));
    }
    const tooMany = Array.from({ length: 21 }, (_, i) => `d${i}.many${n}.acme.test`);
    refusedNamingDomains(await api(a, 'PATCH', '/shawarma/store', { domains: tooMany }));
    // Nothing of a refused list was written.
    expect(await domainsOf(a)).to.deep.include({ domains: [], pending_domains: [] });
  });

  it('keeps a domain the store already holds (a fixture’s local name), checking only the new claims', async () => {
    const local = `keep${n}.localhost`;
    const store = await createStore({ name: 'Local fixture store', domains: [local] });
    const owner = { store, token: await merchantToken(store) };
    const added = `added${n}.acme.test`;
    expectEnvelope(await api(owner, 'PATCH', '/shawarma/store', { domains: [local, added] }), 200);
    const lists = await domainsOf(owner);
    expect(lists.domains).to.deep.equal([local]);
    expect(lists.pending_domains.map((d) => d.domain)).to.deep.equal([added]);
    // A new local name is still refused beside the kept one.
    refusedNamingDomains(
      await api(owner, 'PATCH', '/shawarma/store', { domains: [local, `new${n}.localhost`] }),
    );
  });

  it('refuses a domain another store holds, pending or verified', async () => {
    const pending = `held${n}.acme.test`;
    const verified = `live${n}.acme.test`;
    expectEnvelope(await api(b, 'PATCH', '/shawarma/store', { domains: [pending, verified] }), 200);
    const record = (await domainsOf(b)).pending_domains.find((d) => d.domain === verified)!;
    dns.set(record.txt_name, [[record.txt_value]]);
    await runTask('verify-domains');
    expect((await domainsOf(b)).domains).to.deep.equal([verified]);

    for (const taken of [pending, verified]) {
      const res = await api(a, 'PATCH', '/shawarma/store', { domains: [taken] });
      refusedNamingDomains(res);
      expect(res.text).to.contain(taken);
    }
    expect(await domainsOf(a)).to.deep.include({ domains: [], pending_domains: [] });
  });

  it('a domain left out of the list is removed, verified or pending; a verified one stops serving', async () => {
    await createProduct(a.store, { name: 'Removed item' });
    const verified = `gone${n}.acme.test`;
    const pending = `gonetoo${n}.acme.test`;
    expectEnvelope(await api(a, 'PATCH', '/shawarma/store', { domains: [verified, pending] }), 200);
    const record = (await domainsOf(a)).pending_domains.find((d) => d.domain === verified)!;
    dns.set(record.txt_name, [[record.txt_value]]);
    expectEnvelope(await api(a, 'POST', `/shawarma/store/domains/${verified}/verify`), 200);
    expect((await storefront(verified)).status).to.equal(200);

    const kept = `kept${n}.acme.test`;
    expectEnvelope(await api(a, 'PATCH', '/shawarma/store', { domains: [kept] }), 200);
    const now = await domainsOf(a);
    expect(now.domains).to.deep.equal([]);
    expect(now.pending_domains.map((d) => d.domain)).to.deep.equal([kept]);
    expect((await storefront(verified)).status).to.equal(400);
    // Freed: another store may claim it, and gets a value of its own (the old record proves nothing).
    expectEnvelope(await api(b, 'PATCH', '/shawarma/store', { domains: [verified] }), 200);
    const reclaimed = (await domainsOf(b)).pending_domains[0]!;
    expect(reclaimed.txt_value).to.not.equal(record.txt_value);
    await runTask('verify-domains');
    expect((await domainsOf(b)).domains).to.deep.equal([]);
    expect((await storefront(verified)).status).to.equal(400);
  });

  it('two stores claiming one domain at the same moment: exactly one holds it, the other gets the 422', async () => {
    for (let round = 0; round < 4; round += 1) {
      const contested = `race${round}x${n}.acme.test`;
      const answers = await Promise.all([
        api(a, 'PATCH', '/shawarma/store', { domains: [contested] }),
        api(b, 'PATCH', '/shawarma/store', { domains: [contested] }),
      ]);
      expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join('\n')).to.deep.equal([
        200, 422,
      ]);
      refusedNamingDomains(answers.find((r) => r.status === 422)!);
      const holders = await deps.knex('store_domains').where('domain', contested).pluck('store_id');
      expect(holders).to.have.length(1);
      const winner = answers[0]!.status === 200 ? a : b;
      expect(holders[0]).to.equal(winner.store.id);
    }
  });

  it('the task drops a claim never proven within its days, freeing the name for its owner', async () => {
    const squatted = `squat${n}.acme.test`;
    expectEnvelope(await api(b, 'PATCH', '/shawarma/store', { domains: [squatted] }), 200);
    await deps
      .knex('store_domains')
      .where('domain', squatted)
      .update({ created_at: new Date(Date.now() - (PENDING_DOMAIN_DAYS + 1) * 24 * 3600 * 1000) });
    await runTask('verify-domains');
    expect((await domainsOf(b)).pending_domains).to.deep.equal([]);
    expectEnvelope(await api(a, 'PATCH', '/shawarma/store', { domains: [squatted] }), 200);
  });

  it('POST /__dev/tasks/{name} does not exist in production', async () => {
    const production = await startServer(await isolatedDeps({ NODE_ENV: 'production' }));
    try {
      const res = await production.request('/__dev/tasks/verify-domains', { method: 'POST' });
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({
        error_code: 'not_found',
        message: 'Not found',
        doc_url: '/docs/errors.md#not_found',
      });
    } finally {
      await production.close();
    }
  });

  it('fixture domains count as verified: they serve at once, and a pending claim of the store is proven', async () => {
    const loaded = `fixture${n}.acme.test`;
    const claimed = `claimed${n}.acme.test`;
    const ref = `domains-fixture-${n}`;
    const fixture = (domains: string[]) => ({
      stores: [{ ref, name: 'Fixture store', currency: 'SAR', plan: 'paid' as const, domains, products: [] }],
    });
    await loadFixture(deps, fixture([loaded]));
    const store = (await Store.query(deps.knex).findOne({ fixture_ref: ref }))!;
    await createProduct(store, { name: 'Fixture item' });
    const served = await storefront(loaded);
    expect(served.status, served.text).to.equal(200);
    expect(served.text).to.contain('Fixture item');

    const owner = { store, token: await merchantToken(store) };
    expectEnvelope(await api(owner, 'PATCH', '/shawarma/store', { domains: [loaded, claimed] }), 200);
    expect((await domainsOf(owner)).pending_domains.map((d) => d.domain)).to.deep.equal([claimed]);
    await loadFixture(deps, fixture([loaded, claimed]));
    expect(await domainsOf(owner)).to.deep.include({ domains: [loaded, claimed], pending_domains: [] });
    expect((await storefront(claimed)).status).to.equal(200);
  });

  it('POST /__dev/tasks/{name}: any scheduled task runs now; an unknown name is a 404', async () => {
    await runTask('purge-otp-sessions');
    for (const unknown of ['no-such-task', 'constructor', '__proto__']) {
      const res = await server.request(`/__dev/tasks/${unknown}`, { method: 'POST' });
      expect(res.status, unknown).to.equal(404);
    }
  });

  it('the migration keeps every existing domain verified (it already served its store); new rows start pending', async () => {
    const name = `${TEST_DB_NAME}_domains`;
    await deps.knex.raw(`create database "${name}"`);
    const scratch = knexFactory(knexConfig(testDatabaseUrl.replace(TEST_DB_NAME, name), { min: 0, max: 1 }));
    try {
      // Only what the migration reads, as the initial schema left it.
      await scratch.schema.createTable('store_domains', (t) => {
        t.increments('id');
        t.integer('store_id').notNullable();
        t.string('domain', 253).notNullable().unique();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(scratch.fn.now());
      });
      const added = new Date('2026-11-01T10:00:00Z');
      await scratch('store_domains').insert([
        { store_id: 1, domain: 'live.acme.test', created_at: added },
        { store_id: 2, domain: 'other.acme.test', created_at: added },
      ]);
      await scratch.transaction((trx) => ownershipMigration.up(trx));
      const rows = await scratch('store_domains').orderBy('id');
      expect(rows.map((r) => new Date(r.verified_at).toISOString())).to.deep.equal([
        added.toISOString(),
        added.toISOString(),
      ]);
      expect(rows[0].txt_value).to.match(/^matjar-verify=[0-9a-f]{64}$/);
      expect(rows[1].txt_value).to.not.equal(rows[0].txt_value);
      await scratch('store_domains').insert({
        store_id: 3,
        domain: 'new.acme.test',
        txt_value: 'matjar-verify=x',
      });
      expect((await scratch('store_domains').where('domain', 'new.acme.test').first()).verified_at).to.equal(
        null,
      );
      await scratch.transaction((trx) => ownershipMigration.down(trx));
      const [left] = await scratch('store_domains').count<{ n: string }[]>('* as n');
      expect(Number(left!.n)).to.equal(3);
    } finally {
      await scratch.destroy();
      await deps.knex.raw(`drop database if exists "${name}" with (force)`);
    }
  });

  describe('dashboard settings form', () => {
    async function session(m: MerchantStore) {
      const phone = `5${String(m.store.id).padStart(8, '0')}`;
      const [user] = await deps
        .knex('merchant_users')
        .insert({ name: 'Owner', country_code: '966', phone, e164: `966${phone}` })
        .returning('id');
      const userId = (user as { id: number }).id;
      await deps
        .knex('store_members')
        .insert({ store_id: m.store.id, merchant_user_id: userId, role: 'owner' });
      const token = await createSession(deps.knex, userId, m.store.id, 'test');
      return {
        cookie: `matjar_merchant=${token}`,
        csrf: formToken(deps.appSecret, { token_hash: sha256(token) }),
      };
    }
    const post = (path: string, cookie: string, fields: Record<string, string>) =>
      server.request(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });

    it('shows each pending domain’s TXT record and a verify button, in English and Arabic', async () => {
      const { cookie, csrf } = await session(a);
      const host = `dash${n}.acme.test`;
      const saved = await post('/merchant/settings', cookie, {
        _csrf: csrf,
        name: 'Store A',
        allowed_origins: '',
        domains: host,
      });
      expect(saved.status, saved.text).to.equal(303);
      const [record] = (await domainsOf(a)).pending_domains;

      const en = await server.request('/merchant/settings?lang=en', { headers: { Cookie: cookie } });
      expect(en.status).to.equal(200);
      expect(en.text).to.contain(`data-domain="${host}" data-domain-status="pending"`);
      expect(en.text).to.contain('TXT record name');
      expect(en.text).to.match(
        new RegExp(`<input id="txt-name-0" readonly[^>]*value="_matjar-verify\\.${host}"`),
      );
      expect(en.text).to.match(
        new RegExp(`<input id="txt-value-0" readonly[^>]*value="${record!.txt_value}"`),
      );
      expect(en.text).to.contain('Waiting for the TXT record');
      expect(en.text).to.contain('Verify now');
      const ar = await server.request('/merchant/settings?lang=ar', { headers: { Cookie: cookie } });
      expect(ar.text).to.contain('اسم سجل TXT');
      expect(ar.text).to.contain('تحقّق الآن');

      // "Verify now": still pending, then verified once the record holds.
      const first = await post('/merchant/settings/domains/verify', cookie, { _csrf: csrf, domain: host });
      expect(first.status).to.equal(303);
      expect(first.headers.get('location')).to.equal('/merchant/settings?domain=pending');
      dns.set(record!.txt_name, [[record!.txt_value]]);
      const second = await post('/merchant/settings/domains/verify', cookie, { _csrf: csrf, domain: host });
      expect(second.headers.get('location')).to.equal('/merchant/settings?domain=verified');
      const after = await server.request('/merchant/settings?lang=en&domain=verified', {
        headers: { Cookie: cookie },
      });
      expect(after.text).to.contain(`data-domain="${host}" data-domain-status="verified"`);
      expect(after.text).to.contain('The domain is verified');
      expect((await storefront(host)).status).to.equal(200);
      const unknown = await post('/merchant/settings/domains/verify', cookie, {
        _csrf: csrf,
        domain: `nobody${n}.acme.test`,
      });
      expect(unknown.status).to.equal(404);
    });

    it('saves the list with a domain the store already holds (a fixture’s local name) and one more', async () => {
      const local = `form${n}.localhost`;
      const store = await createStore({ name: 'Local form store', domains: [local] });
      const owner = { store, token: await merchantToken(store) };
      const { cookie, csrf } = await session(owner);
      const added = `formadded${n}.acme.test`;
      const res = await post('/merchant/settings', cookie, {
        _csrf: csrf,
        name: 'Local form store',
        allowed_origins: '',
        domains: `${local}\n${added}`,
      });
      expect(res.status, res.text).to.equal(303);
      const lists = await domainsOf(owner);
      expect(lists.domains).to.deep.equal([local]);
      expect(lists.pending_domains.map((d) => d.domain)).to.deep.equal([added]);
    });

    it('refuses the platform host, localhost or another store’s domain as a field error', async () => {
      const { cookie, csrf } = await session(a);
      const theirs = `theirs${n}.acme.test`;
      expectEnvelope(await api(b, 'PATCH', '/shawarma/store', { domains: [theirs] }), 200);
      for (const [bad, message] of [
        [PLATFORM_HOST, 'not this platform’s own address'],
        ['localhost', 'not this platform’s own address'],
        ['192.168.0.1', 'not this platform’s own address'],
        [theirs, 'belongs to another store'],
      ] as const) {
        const res = await post('/merchant/settings', cookie, {
          _csrf: csrf,
          name: 'Store A',
          allowed_origins: '',
          domains: bad,
        });
        expect(res.status, bad).to.equal(422);
        expect(res.text).to.contain('id="domains-error"');
        expect(res.text).to.contain(message);
      }
      expect(await deps.knex('store_domains').where('store_id', a.store.id)).to.deep.equal([]);
    });
  });
});
