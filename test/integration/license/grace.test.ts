import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, verify } from './support';

const DAY = 86_400_000;

describe('License policy: grace period after expiry and check-in period', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let token: string;
  let product: Product;

  const patchPolicy = (productId: number, json: unknown, t = token): ReturnType<TestServer['request']> =>
    server.request(`/shawarma/products/${productId}/license-policy`, {
      method: 'PATCH',
      json,
      headers: { Authorization: `Bearer ${t}` },
    });
  const claimsOf = (certificate: string): Record<string, unknown> =>
    JSON.parse(Buffer.from(certificate.split('.')[1]!, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    token = await merchantToken(store);
    product = await licensedProduct(store, deps.cipher, { name: 'Studio' });
  });
  after(() => server.close());

  it('answers grace with grace_ends_at for N days past expiry, then LICENSE_EXPIRED', async () => {
    const expires = new Date(Date.now() - 2 * DAY);
    const lapsed = await insertLicense(product, { expires_at: expires });
    const longGone = await insertLicense(product, { expires_at: new Date(Date.now() - 8 * DAY) });
    // The hourly job already marked this one expired: the grace period still applies to it.
    const marked = await insertLicense(product, {
      status: 'expired',
      expires_at: new Date(Date.now() - DAY),
    });

    expectRefusal(
      await verify(server, { product_id: product.id, license_key: lapsed.key }),
      403,
      'LICENSE_EXPIRED',
    );

    const saved = await patchPolicy(product.id, { grace_days: 7 });
    expect(saved.status, saved.text).to.equal(200);
    expect(saved.body.data).to.deep.equal({
      product_id: product.id,
      grace_days: 7,
      checkin_days: 0,
      floating: false,
      heartbeat_seconds: 600,
      reset_limit: 2,
      reset_window_days: 30,
    });

    const res = await verify(server, { product_id: product.id, license_key: lapsed.key });
    expect(res.status, res.text).to.equal(200);
    const data = res.body.data as { status: string; grace_ends_at: string; expires_in_days: number };
    expect(data.status).to.equal('grace');
    expect(data.grace_ends_at).to.equal(new Date(expires.getTime() + 7 * DAY).toISOString());
    expect(data.expires_in_days).to.equal(0);
    expect(
      (
        (await verify(server, { product_id: product.id, license_key: marked.key })).body.data as {
          status: string;
        }
      ).status,
    ).to.equal('grace');
    expectRefusal(
      await verify(server, { product_id: product.id, license_key: longGone.key }),
      403,
      'LICENSE_EXPIRED',
    );

    // A certificate issued in grace ends with the grace period.
    const cert = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: product.id, license_key: lapsed.key },
    });
    expect(cert.status, cert.text).to.equal(200);
    const claims = claimsOf((cert.body.data as { certificate: string }).certificate);
    expect(claims.status).to.equal('grace');
    expect(claims.exp).to.equal(Math.floor((expires.getTime() + 7 * DAY) / 1000));

    // An active license is untouched by the grace period.
    const current = await insertLicense(product, { expires_at: new Date(Date.now() + 5 * DAY) });
    const active = await verify(server, { product_id: product.id, license_key: current.key });
    expect(active.body.data).to.include({ status: 'active', grace_ends_at: null });
  });

  it('limits certificates to the check-in period and carries it', async () => {
    const other = await licensedProduct(store, deps.cipher, { name: 'Offline Tool' });
    const license = await insertLicense(other);
    expect((await patchPolicy(other.id, { checkin_days: 7 })).status).to.equal(200);
    const cert = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: other.id, license_key: license.key },
    });
    expect(cert.status, cert.text).to.equal(200);
    const claims = claimsOf((cert.body.data as { certificate: string }).certificate);
    expect(claims.checkin_days).to.equal(7);
    expect((claims.exp as number) - (claims.iat as number)).to.equal(7 * 86_400);
    const res = await verify(server, { product_id: other.id, license_key: license.key });
    expect((res.body.data as { checkin_days: number }).checkin_days).to.equal(7);
  });

  it('refuses out-of-range values naming the field, and another store’s product', async () => {
    const bad = await patchPolicy(product.id, { grace_days: 400 });
    expect(bad.status).to.equal(422);
    expect(JSON.stringify(bad.body.errors)).to.contain('grace_days');
    const other = await createStore();
    const foreign = await patchPolicy(product.id, { grace_days: 1 }, await merchantToken(other));
    expect(foreign.status).to.equal(404);
  });
});
