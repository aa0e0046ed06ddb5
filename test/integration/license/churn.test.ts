import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer, type TestResponse } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, verify } from './support';

describe('Activation churn: merchant-set reset limit and the license history', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let token: string;
  let product: Product;

  const merchant = (method: string, path: string, json?: unknown): Promise<TestResponse> =>
    server.request(`/shawarma${path}`, { method, json, headers: { Authorization: `Bearer ${token}` } });
  const selfReset = (licenseKey: string, hwid?: string): Promise<TestResponse> =>
    server.request('/verify/reset', {
      method: 'POST',
      json: { product_id: product.id, license_key: licenseKey, ...(hwid ? { hwid } : {}) },
    });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    token = await merchantToken(store);
    product = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 3,
    });
  });
  after(() => server.close());

  it('limits self-service resets to the merchant’s reset_limit per reset_window_days', async () => {
    const saved = await merchant('PATCH', `/products/${product.id}/license-policy`, {
      reset_limit: 1,
      reset_window_days: 7,
    });
    expect(saved.status, saved.text).to.equal(200);
    const license = await insertLicense(product);
    for (const hwid of ['PC-1', 'PC-2'])
      expect(
        (await verify(server, { product_id: product.id, license_key: license.key, hwid })).status,
      ).to.equal(200);
    const first = await selfReset(license.key, 'PC-1');
    expect(first.status, first.text).to.equal(200);
    expect((first.body.data as { resets: unknown }).resets).to.deep.include({
      used: 1,
      limit: 1,
      window_days: 7,
    });
    const second = await selfReset(license.key, 'PC-2');
    expectRefusal(second, 403, 'RESET_LIMIT_REACHED');
    const next = Date.parse(second.body.next_reset_at as string);
    expect(next - Date.now()).to.be.within(6.9 * 86_400_000, 7 * 86_400_000);

    // No self-service reset at all.
    expect(
      (await merchant('PATCH', `/products/${product.id}/license-policy`, { reset_limit: 0 })).status,
    ).to.equal(200);
    const other = await insertLicense(product);
    await verify(server, { product_id: product.id, license_key: other.key, hwid: 'X' });
    expectRefusal(await selfReset(other.key), 403, 'RESET_LIMIT_REACHED');
  });

  it('records every activation and reset, by whom, in the history the merchant reads', async () => {
    const license = await insertLicense(product);
    await verify(server, { product_id: product.id, license_key: license.key, hwid: 'DESK-0001' });
    await verify(server, { product_id: product.id, license_key: license.key, hwid: 'DESK-0001' });
    await verify(server, { product_id: product.id, license_key: license.key, hwid: 'LAPTOP-0002' });
    const reset = await merchant('POST', `/licenses/${license.id}/reset-activations`, { hwid: 'DESK-0001' });
    expect(reset.status, reset.text).to.equal(200);

    const history = await merchant('GET', `/licenses/${license.id}/history`);
    expect(history.status, history.text).to.equal(200);
    const data = history.body.data as {
      items: { kind: string; actor: string; hint: string | null; removed: number | null }[];
      meta: { total: number };
    };
    expect(data.meta.total, 'a known hwid verified again is no new activation').to.equal(3);
    expect(data.items.map((e) => [e.kind, e.actor, e.hint, e.removed])).to.deep.equal([
      ['reset', 'merchant', '…0001', 1],
      ['activated', 'customer', '…0002', null],
      ['activated', 'customer', '…0001', null],
    ]);

    const foreign = await createStore();
    const res = await server.request(`/shawarma/licenses/${license.id}/history`, {
      headers: { Authorization: `Bearer ${await merchantToken(foreign)}` },
    });
    expect(res.status).to.equal(404);
  });
});
