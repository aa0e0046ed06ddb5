import { expect } from 'chai';
import type { License, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, verify } from './support';

describe('Merchant API: license control (/shawarma)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let token: string;
  let product: Product;

  const auth = (t = token): Record<string, string> => ({ Authorization: `Bearer ${t}` });
  const get = (path: string, t?: string): ReturnType<TestServer['request']> =>
    server.request(`/shawarma${path}`, { headers: auth(t) });
  const post = (path: string, json: unknown = {}, t?: string): ReturnType<TestServer['request']> =>
    server.request(`/shawarma${path}`, { method: 'POST', json, headers: auth(t) });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    token = await merchantToken(store);
    product = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 2,
    });
  });
  after(() => server.close());

  it('lists a product’s licenses newest first, paged, filtered by status', async () => {
    const listed = await licensedProduct(store, deps.cipher);
    const made: License[] = [];
    for (let i = 0; i < 17; i += 1)
      made.push(await insertLicense(listed, { status: i === 0 ? 'revoked' : 'active' }));
    const first = await get(`/products/${listed.id}/licenses`);
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ api: 'merchant', message: null });
    const data = first.body.data as { items: Array<Record<string, unknown>>; meta: Record<string, number> };
    expect(data.meta).to.deep.equal({ page: 1, per_page: 15, total: 17, last_page: 2 });
    expect(data.items).to.have.length(15);
    expect(data.items[0]!.id).to.equal(made[16]!.id);
    expect(data.items[0]).to.include({
      key: made[16]!.key,
      status: 'active',
      lock_type: 'none',
      activations_count: 0,
    });
    const second = await get(`/products/${listed.id}/licenses?page=2&per_page=15`);
    expect((second.body.data as { items: unknown[] }).items).to.have.length(2);
    const revoked = await get(`/products/${listed.id}/licenses?status=revoked`);
    expect((revoked.body.data as { items: Array<{ id: number }> }).items.map((l) => l.id)).to.deep.equal([
      made[0]!.id,
    ]);
    const bad = await get(`/products/${listed.id}/licenses?per_page=1000&status=bogus`);
    expect(bad.status).to.equal(422);
    expect(bad.body.errors).to.have.keys('per_page', 'status');
    expect(bad.body).to.include({ error: true, api: 'merchant' });
  });

  it('shows one license with its activations (hints, never the hwid)', async () => {
    const license = await insertLicense(product);
    for (const hwid of ['PC-ALPHA-1234', 'PC-BETA-5678'])
      expect(
        (await verify(server, { product_id: product.id, license_key: license.key, hwid })).status,
      ).to.equal(200);
    const res = await get(`/licenses/${license.id}`);
    expect(res.status).to.equal(200);
    const data = res.body.data as Record<string, unknown> & { activations: Array<Record<string, unknown>> };
    expect(data).to.include({
      id: license.id,
      key: license.key,
      status: 'active',
      max_activations: 2,
      activations_count: 2,
    });
    expect(data.activations.map((a) => a.hint)).to.deep.equal(['…1234', '…5678']);
    expect(data.activations[0]).to.have.all.keys('id', 'hint', 'created_at', 'last_seen_at');
    expect(res.text).to.not.include('PC-ALPHA');
  });

  it('suspends and reactivates; verify sees each change at once', async () => {
    const license = await insertLicense(product);
    const body = { product_id: product.id, license_key: license.key, hwid: 'SUS-1' };
    expect((await verify(server, body)).status).to.equal(200);
    expect((await verify(server, body)).status).to.equal(200);

    const suspended = await post(`/licenses/${license.id}/suspend`);
    expect(suspended.status).to.equal(200);
    expect(suspended.body.message).to.equal('License suspended');
    expect(suspended.body.data).to.include({ status: 'suspended' });
    expectRefusal(await verify(server, body), 403, 'LICENSE_SUSPENDED');
    expect((await post(`/licenses/${license.id}/suspend`)).status, 'twice changes nothing').to.equal(200);

    const reactivated = await post(`/licenses/${license.id}/reactivate`);
    expect(reactivated.status).to.equal(200);
    expect(reactivated.body.data).to.include({ status: 'active' });
    expect((await verify(server, body)).status).to.equal(200);
  });

  it('refuses suspending or reactivating a revoked license (400); reactivating an active one changes nothing', async () => {
    const revoked = await insertLicense(product, { status: 'revoked' });
    const res = await post(`/licenses/${revoked.id}/suspend`);
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal('Only an active license can be suspended; this one is revoked');
    const active = await insertLicense(product);
    const again = await post(`/licenses/${active.id}/reactivate`);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.include({ status: 'active' });
    expect((await post(`/licenses/${revoked.id}/reactivate`)).status).to.equal(400);
  });

  it('resets one hwid, one activation by id, or all; the freed slots take new hwids', async () => {
    const license = await insertLicense(product);
    const call = (hwid: string): ReturnType<typeof verify> =>
      verify(server, { product_id: product.id, license_key: license.key, hwid });
    expect((await call('R-1')).status).to.equal(200);
    expect((await call('R-2')).status).to.equal(200);
    expectRefusal(await call('R-3'), 403, 'ACTIVATION_LIMIT_REACHED');

    const one = await post(`/licenses/${license.id}/reset-activations`, { hwid: 'R-1' });
    expect(one.status, one.text).to.equal(200);
    expect(one.body.data).to.include({ removed: 1, activations_count: 1 });
    expect((await call('R-3')).status).to.equal(200);
    expectRefusal(await call('R-1'), 403, 'ACTIVATION_LIMIT_REACHED');

    const detail = (await get(`/licenses/${license.id}`)).body.data as {
      activations: Array<{ id: number; hint: string }>;
    };
    const r3 = detail.activations.find((a) => a.hint === '…R-3')!;
    const byId = await post(`/licenses/${license.id}/reset-activations`, { activation_id: r3.id });
    expect(byId.body.data).to.include({ removed: 1, activations_count: 1 });
    expect(
      (await post(`/licenses/${license.id}/reset-activations`, { activation_id: r3.id })).status,
    ).to.equal(404);
    expect((await post(`/licenses/${license.id}/reset-activations`, { hwid: 'NEVER-SEEN' })).status).to.equal(
      404,
    );

    const all = await post(`/licenses/${license.id}/reset-activations`);
    expect(all.body.data).to.include({ removed: 1, activations_count: 0 });
    expect((all.body.data as { activations: unknown[] }).activations).to.deep.equal([]);
    expect((await call('R-8')).status).to.equal(200);
    expect((await call('R-9')).status).to.equal(200);

    const both = await post(`/licenses/${license.id}/reset-activations`, { hwid: 'R-8', activation_id: 1 });
    expect(both.status).to.equal(422);
  });

  it('scopes everything to the token’s store, and needs a token', async () => {
    const other = await createStore();
    const otherToken = await merchantToken(other);
    const license = await insertLicense(product);
    expect((await get(`/licenses/${license.id}`, otherToken)).status).to.equal(404);
    expect((await post(`/licenses/${license.id}/suspend`, {}, otherToken)).status).to.equal(404);
    expect((await post(`/licenses/${license.id}/reset-activations`, {}, otherToken)).status).to.equal(404);
    expect((await get(`/products/${product.id}/licenses`, otherToken)).status).to.equal(404);
    expect(
      (await verify(server, { product_id: product.id, license_key: license.key, hwid: 'X' })).status,
    ).to.equal(200);
    const anonymous = await server.request(`/shawarma/licenses/${license.id}`);
    expect(anonymous.status).to.equal(401);
    expect((await get('/licenses/not-a-number')).status).to.equal(422);
  });
});
