import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, times, verify } from './support';

describe('License Verification API: POST /verify/reset (customer self-service)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;

  const reset = (body: Record<string, unknown>): ReturnType<TestServer['request']> =>
    server.request('/verify/reset', { method: 'POST', json: body });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
  });
  after(() => server.close());

  it('frees one hwid or all, twice per 30 days; a reset that removes nothing uses no quota', async () => {
    const license = await insertLicense(product);
    const call = (hwid: string): ReturnType<typeof verify> =>
      verify(server, { product_id: product.id, license_key: license.key, hwid });
    expect((await call('OLD-PC')).status).to.equal(200);
    expectRefusal(await call('NEW-PC'), 403, 'ACTIVATION_LIMIT_REACHED');

    const nothing = await reset({ product_id: product.id, license_key: license.key, hwid: 'NEVER-SEEN' });
    expect(nothing.status, nothing.text).to.equal(200);
    expect((nothing.body.data as { removed: number; resets: { used: number } }).removed).to.equal(0);
    expect((nothing.body.data as { resets: { used: number } }).resets.used).to.equal(0);

    const first = await reset({
      product_id: product.id,
      license_key: license.key,
      hwid: 'OLD-PC',
      nonce: 'r-1',
    });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ success: true, nonce: 'r-1' });
    expect(first.body.data).to.deep.equal({
      removed: 1,
      activations: { current: 0, max: 1, remaining: 1 },
      resets: { used: 1, limit: 2, window_days: 30, next_reset_at: null },
    });
    // The freed slot is taken by the new machine at once (the cached snapshot was invalidated).
    expect((await call('NEW-PC')).status).to.equal(200);

    const second = await reset({ product_id: product.id, license_key: license.key });
    expect((second.body.data as { removed: number }).removed).to.equal(1);
    const resets = (second.body.data as { resets: { used: number; next_reset_at: string } }).resets;
    expect(resets.used).to.equal(2);
    const next = new Date(resets.next_reset_at).getTime();
    expect(next - Date.now()).to.be.within(29 * 86_400_000, 30 * 86_400_000 + 1000);

    expect((await call('THIRD-PC')).status).to.equal(200);
    const third = await reset({ product_id: product.id, license_key: license.key });
    expectRefusal(third, 403, 'RESET_LIMIT_REACHED');
    expect(third.body.next_reset_at).to.equal(resets.next_reset_at);
    expect((await call('THIRD-PC')).status, 'the refused reset removed nothing').to.equal(200);
  });

  it('lets only the quota’s worth of 10 simultaneous resets through', async () => {
    const unlimited = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 0,
    });
    const license = await insertLicense(unlimited);
    for (let i = 0; i < 10; i += 1)
      await verify(server, { product_id: unlimited.id, license_key: license.key, hwid: `M-${i}` });
    const responses = await times(10, (i) =>
      reset({ product_id: unlimited.id, license_key: license.key, hwid: `M-${i}` }),
    );
    expect(responses.filter((r) => r.status === 200)).to.have.length(2);
    expect(responses.filter((r) => r.status === 403)).to.have.length(8);
    expect(await deps.knex('license_resets').where({ license_id: license.id })).to.have.length(2);
    expect(await deps.knex('license_activations').where({ license_id: license.id })).to.have.length(8);
  });

  it('refuses what verify refuses, and a license without a lock', async () => {
    const revoked = await insertLicense(product, { status: 'revoked' });
    expectRefusal(await reset({ product_id: product.id, license_key: revoked.key }), 403, 'LICENSE_REVOKED');
    expectRefusal(
      await reset({ product_id: product.id, license_key: 'NOPE-NOPE' }),
      404,
      'LICENSE_NOT_FOUND',
    );
    const plain = await licensedProduct(store, deps.cipher);
    const open = await insertLicense(plain);
    expectRefusal(await reset({ product_id: plain.id, license_key: open.key }), 400, 'INVALID_REQUEST');
    const invalid = await reset({ product_id: 'x' });
    expect(invalid.status).to.equal(422);
    expect(invalid.body.errors).to.have.keys('product_id', 'license_key');
    expect(invalid.headers.get('x-signature')).to.be.a('string');
  });
});
